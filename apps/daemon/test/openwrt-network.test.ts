import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { NetworkConfig } from '../src/domains/network/network-config.js';
import { RenderValueError } from '../src/domains/network/network-syntax.js';
import { checkSwanctl } from '../src/domains/network/network-vpn-swanctl.js';
import { OPENWRT_NETWORK_FILES, renderOpenwrtNetwork, renderOpenwrtNetworkPackages } from '../src/domains/network/network-openwrt.js';
import { OPENWRT_SWANCTL_FILES } from '../src/domains/network/network-openwrt-vpn.js';
import { checkUci } from '../src/engine/uci-check.js';
import { parseUci, serializeUci, type UciPackage, type UciSection } from '../src/engine/uci-format.js';
import { ALTERNATE, buildConfig, PLAIN_LINKS, REPRESENTATIVE, type ConfigInput } from './network-fixture.js';

const here = dirname(fileURLToPath(import.meta.url));
const goldenDir = join(here, 'golden', 'openwrt');
const update = process.env.UPDATE_GOLDEN === '1';

/** IPTV bridged to a set-top port, PPTP and a second L2TP client with all traffic through it. */
const SERVICES: ConfigInput = {
  ...REPRESENTATIVE,
  interfaces: [
    ...REPRESENTATIVE.interfaces,
    { ifname: 'tv', role: 'lan', hwport: ['eth6'], ipaddr: '172.16.6.1', netmask: '255.255.255.0' },
  ],
  iptv: { enable: true, type: 'bridge', wan: 'wan1', wantag: 45, lantag: 10, portnum: 'eth7' },
  vpnClients: [
    ...REPRESENTATIVE.vpnClients,
    { type: 'pptp', name: 'branch', server: '203.0.113.80', username: 'pptp.user', password: "it's \\ \"q\"", defaultroute: true },
    { type: 'l2tp', name: 'off', server: '192.0.2.1', username: 'u', password: 'p', enabled: false },
  ],
};

const FIXTURES = [
  ['representative', REPRESENTATIVE],
  ['alternate', ALTERNATE],
  ['services', SERVICES],
  ['plain-links', PLAIN_LINKS],
] as const;

function files(config: NetworkConfig) {
  const [output] = renderOpenwrtNetwork(config);
  expect(output!.domain).toBe('network');
  return new Map(output!.files.map((f) => [f.target, f]));
}

function named(pkg: UciPackage, type: string, name?: string): UciSection[] {
  return pkg.filter((s) => s.type === type && (name === undefined || s.name === name));
}

describe('openwrt golden files (UPDATE_GOLDEN=1 rewrites them)', () => {
  for (const [name, input] of FIXTURES.slice(0, 3)) {
    it(`${name}: every UCI package and swanctl file equals its golden copy`, () => {
      const dir = join(goldenDir, name);
      for (const [target, file] of files(buildConfig(input))) {
        const golden = join(dir, basename(target));
        if (update) {
          mkdirSync(dir, { recursive: true });
          writeFileSync(golden, file.content);
        }
        expect(existsSync(golden), `${golden} (run with UPDATE_GOLDEN=1 once)`).toBe(true);
        expect(file.content, target).toBe(readFileSync(golden, 'utf8'));
      }
    });
  }
});

describe('what the openwrt network renderer writes', () => {
  const rep = renderOpenwrtNetworkPackages(buildConfig(REPRESENTATIVE));
  const alt = renderOpenwrtNetworkPackages(buildConfig(ALTERNATE));

  it('writes network, dhcp, firewall, mwan3, then igmpproxy and the swanctl files when needed; secrets make files private', () => {
    const rendered = files(buildConfig(REPRESENTATIVE));
    expect([...rendered.keys()]).toEqual([
      OPENWRT_NETWORK_FILES.network,
      OPENWRT_NETWORK_FILES.dhcp,
      OPENWRT_NETWORK_FILES.firewall,
      OPENWRT_NETWORK_FILES.mwan3,
      OPENWRT_SWANCTL_FILES.connections,
      OPENWRT_SWANCTL_FILES.secrets,
    ]);
    expect([...rendered.values()].map((f) => f.check)).toEqual(['uci', 'uci', 'uci', 'uci', 'swanctl', 'swanctl']);
    expect(rendered.get(OPENWRT_NETWORK_FILES.network)!.mode).toBe(0o600);
    expect(rendered.get(OPENWRT_SWANCTL_FILES.secrets)!.mode).toBe(0o600);
    const alternate = files(buildConfig(ALTERNATE));
    expect([...alternate.keys()]).toEqual([
      OPENWRT_NETWORK_FILES.network,
      OPENWRT_NETWORK_FILES.dhcp,
      OPENWRT_NETWORK_FILES.firewall,
      OPENWRT_NETWORK_FILES.mwan3,
      OPENWRT_NETWORK_FILES.igmpproxy,
    ]);
    expect(alternate.get(OPENWRT_NETWORK_FILES.network)!.mode).toBe(0o644);
    // Only a tunnel password, no PPPoE: still private.
    const tunnelOnly = files(buildConfig({ ...ALTERNATE, vpnClients: [{ type: 'l2tp', name: 'office', server: 'vpn.example.com', username: 'b', password: 'x' }] }));
    expect(tunnelOnly.get(OPENWRT_NETWORK_FILES.network)!.mode).toBe(0o600);
  });

  it('round-trips: parseUci(serializeUci(x)) deep-equals every rendered package', () => {
    for (const [name, input] of FIXTURES) {
      const packages = renderOpenwrtNetworkPackages(buildConfig(input));
      for (const [file, pkg] of Object.entries(packages)) expect(parseUci(serializeUci(pkg)), `${name} ${file}`).toEqual(pkg);
    }
  });

  it('network: bridge device with its ports, tagged devices, static, PPPoE and secondary addresses', () => {
    expect(named(rep.network, 'interface', 'loopback')[0]!.options.device).toBe('lo');
    expect(named(rep.network, 'device', 'lan_dev')[0]!.options).toEqual({ name: 'br-lan', type: 'bridge', ports: ['eth2', 'eth3'] });
    expect(named(rep.network, 'device', 'wan2_vlan')[0]!.options).toEqual({ name: 'eth1.35', type: '8021q', ifname: 'eth1', vid: '35' });
    expect(named(rep.network, 'interface', 'wan1')[0]!.options).toMatchObject({
      device: 'eth0',
      proto: 'static',
      ipaddr: ['203.0.113.2/29', '203.0.113.3/29'],
      gateway: '203.0.113.1',
      dns: ['198.51.100.53', '198.51.100.54'],
    });
    expect(named(rep.network, 'interface', 'wan2')[0]!.options).toMatchObject({ device: 'eth1.35', proto: 'pppoe', username: 'user@isp', password: 'secret-1', mtu: '1492' });
    expect(named(rep.network, 'interface', 'lan')[0]!.options).toMatchObject({ device: 'br-lan', ipaddr: ['192.168.1.1/24', '10.10.0.1/24'], ip6addr: 'fd00:1::1/64' });
    expect(named(rep.network, 'interface', 'guest')[0]!.options).toEqual({ device: 'eth3.20', proto: 'static', ipaddr: '192.168.20.1', netmask: '255.255.255.0' });
    expect(named(rep.network, 'route')).toEqual([
      { type: 'route', options: { interface: 'lan', target: '10.20.0.0', netmask: '255.255.0.0', gateway: '192.168.1.254', metric: '10' } },
    ]);
  });

  it('network: bond through proto bonding, macvlan sub-interface, DHCPv6 alias, routes find their interface', () => {
    expect(named(alt.network, 'interface', 'lan')[0]!.options).toMatchObject({ proto: 'bonding', slaves: ['eth3', 'eth4'], ipaddr: '10.0.0.1', netmask: '255.255.0.0' });
    expect(named(alt.network, 'device', 'cams_dev')[0]!.options).toEqual({ name: 'eth7-30', type: 'macvlan', ifname: 'eth7', mode: 'private', macaddr: '02:00:00:00:00:30' });
    expect(named(alt.network, 'interface', 'wan3_6')[0]!.options).toEqual({ device: '@wan3', proto: 'dhcpv6', reqaddress: 'none', reqprefix: 'no' });
    expect(named(alt.network, 'interface', 'lab')).toEqual([]);
    // The disabled route is left out; the one without an interface goes where its gateway lives.
    expect(named(alt.network, 'route').map((s) => s.options)).toEqual([
      { interface: 'wan3', target: '0.0.0.0', netmask: '0.0.0.0', metric: '500' },
      { interface: 'lan', target: '192.0.2.0', netmask: '255.255.255.0', gateway: '10.0.0.2', metric: '0' },
    ]);
  });

  it('dhcp: start counted from the network address, limit is the pool size, WANs ignored, static hosts', () => {
    expect(named(rep.dhcp, 'dnsmasq')).toHaveLength(1);
    expect(named(rep.dhcp, 'dhcp', 'lan')[0]!.options).toEqual({
      interface: 'lan',
      start: '100',
      limit: '100',
      leasetime: '720m',
      ra: 'server',
      dhcpv6: 'server',
      ra_flags: ['other-config'],
    });
    // pool_size 0 runs to the last host address.
    expect(named(rep.dhcp, 'dhcp', 'guest')[0]!.options).toEqual({ interface: 'guest', start: '10', limit: '245', leasetime: '60m', dhcp_option: ['6,198.51.100.53'] });
    expect(named(rep.dhcp, 'dhcp', 'wan2')[0]!.options).toEqual({ interface: 'wan2', ignore: '1' });
    expect(named(rep.dhcp, 'host').map((s) => s.options)).toEqual([
      { name: 'printer', mac: '00:11:22:33:44:55', ip: '192.168.1.10' },
      { mac: '00:11:22:33:44:66', ip: '192.168.1.11' },
    ]);
    expect(named(alt.dhcp, 'dhcp', 'lan')[0]!.options).toMatchObject({ start: '257', limit: '500', leasetime: '1440m', dhcp_option: ['3,10.0.0.254'], ra_flags: ['managed-config', 'other-config'] });
  });

  it('firewall: LAN and WAN zones, masquerade on WAN, forwarding LAN to WAN, dropping policies', () => {
    expect(named(rep.firewall, 'defaults')[0]!.options).toMatchObject({ input: 'REJECT', forward: 'DROP' });
    expect(named(rep.firewall, 'zone', 'lan')[0]!.options).toMatchObject({ network: ['lan', 'guest'], input: 'ACCEPT' });
    // The L2TP client leads out like a WAN; the IPsec client has no interface of its own.
    expect(named(rep.firewall, 'zone', 'wan')[0]!.options).toMatchObject({ network: ['wan1', 'wan2', 'office'], input: 'DROP', forward: 'DROP', masq: '1' });
    expect(named(rep.firewall, 'forwarding')[0]!.options).toEqual({ src: 'lan', dest: 'wan' });
    expect(named(alt.firewall, 'zone', 'wan')[0]!.options.network).toEqual(['wan1', 'wan2', 'wan3', 'wan3_6', 'iptv_tv']);
    expect(named(alt.firewall, 'rule').map((s) => s.options.name)).toEqual([
      'Allow-DHCP-Renew',
      'ARP-Bind',
      'ARP-Bind',
      'Allow-IPTV-IGMP',
      'Allow-IPTV-Multicast',
      'Allow-DHCPv6',
      'Allow-ICMPv6-Input',
    ]);
    expect(named(rep.firewall, 'rule').map((s) => s.options.name)).toEqual(['ARP-Bind', 'ARP-Bind', 'ARP-Bind', 'ARP-Bind']);
  });

  it('ARP bindings: a netifd neighbour on the named or holding LAN, and fw4 drops for the address from another MAC', () => {
    expect(named(rep.network, 'neighbor').map((s) => s.options)).toEqual([
      { interface: 'lan', ipaddr: '192.168.1.10', mac: '00:11:22:33:44:55' },
      { interface: 'lan', ipaddr: '192.168.1.20', mac: '00:11:22:33:44:77' },
    ]);
    const drops = named(rep.firewall, 'rule').filter((s) => s.options.name === 'ARP-Bind');
    expect(drops.map((s) => s.options)).toEqual([
      { name: 'ARP-Bind', src: 'lan', family: 'ipv4', proto: 'all', src_ip: '192.168.1.10', src_mac: '!00:11:22:33:44:55', target: 'DROP' },
      { name: 'ARP-Bind', src: 'lan', family: 'ipv4', proto: 'all', src_ip: '192.168.1.10', src_mac: '!00:11:22:33:44:55', target: 'DROP', dest: '*' },
      { name: 'ARP-Bind', src: 'lan', family: 'ipv4', proto: 'all', src_ip: '192.168.1.20', src_mac: '!00:11:22:33:44:77', target: 'DROP' },
      { name: 'ARP-Bind', src: 'lan', family: 'ipv4', proto: 'all', src_ip: '192.168.1.20', src_mac: '!00:11:22:33:44:77', target: 'DROP', dest: '*' },
    ]);
    // A binding outside every LAN network binds nothing.
    const outside = renderOpenwrtNetworkPackages(buildConfig({ ...REPRESENTATIVE, arpBinds: [{ ip: '198.18.0.1', mac: '00:11:22:33:44:88' }] }));
    expect(named(outside.network, 'neighbor')).toEqual([]);
  });

  it('multi-WAN as mwan3: tracked interfaces, balance members first by weight, failover after by priority, one policy', () => {
    expect(named(rep.mwan3, 'interface', 'wan1')[0]!.options).toMatchObject({ enabled: '1', family: 'ipv4', track_method: 'ping', track_ip: ['198.51.100.1'] });
    expect(named(rep.mwan3, 'member').map((s) => [s.name, s.options])).toEqual([
      ['wan1_m', { interface: 'wan1', metric: '1', weight: '2' }],
      ['wan2_m', { interface: 'wan2', metric: '3', weight: '1' }],
    ]);
    expect(named(rep.mwan3, 'policy', 'portico_wans')[0]!.options).toEqual({ use_member: ['wan1_m', 'wan2_m'], last_resort: 'unreachable' });
    expect(named(rep.mwan3, 'rule')[0]!.options).toMatchObject({ dest_ip: '0.0.0.0/0', use_policy: 'portico_wans' });
    // No track IP: the interface is taken as up, no probing options.
    expect(named(alt.mwan3, 'interface', 'wan1')[0]!.options).toEqual({ enabled: '1', family: 'ipv4' });
    expect(renderOpenwrtNetworkPackages(buildConfig(PLAIN_LINKS)).mwan3.map((s) => s.type)).toEqual(['interface', 'interface', 'member', 'member', 'policy', 'rule']);
    expect(renderOpenwrtNetworkPackages(buildConfig({ ...PLAIN_LINKS, multiWan: [] })).mwan3).toEqual([]);
  });

  it('IPTV: IGMP proxy between the tagged upstream and the set-top LAN, with fw4 rules; bridge mode as a VLAN-aware bridge', () => {
    expect(named(alt.network, 'device', 'iptv_up')[0]!.options).toEqual({ name: 'eth1.45', type: '8021q', ifname: 'eth1', vid: '45' });
    expect(named(alt.network, 'interface', 'iptv_tv')[0]!.options).toEqual({ device: 'eth1.45', proto: 'none' });
    expect(alt.igmpproxy!.map((s) => s.options)).toEqual([
      { quickleave: '1' },
      { network: 'iptv_tv', zone: 'wan', direction: 'upstream', altnet: ['0.0.0.0/0'] },
      { network: 'tv', zone: 'lan', direction: 'downstream' },
    ]);
    expect(named(alt.firewall, 'zone', 'wan')[0]!.options.network).toContain('iptv_tv');
    expect(named(alt.firewall, 'rule').map((s) => s.options.name)).toEqual(expect.arrayContaining(['Allow-IPTV-IGMP', 'Allow-IPTV-Multicast']));
    const services = renderOpenwrtNetworkPackages(buildConfig(SERVICES));
    expect(named(services.network, 'device', 'iptv_br')[0]!.options).toEqual({ name: 'iptv-br', type: 'bridge', ports: ['eth0.45', 'eth7'], vlan_filtering: '1' });
    expect(named(services.network, 'bridge-vlan', 'iptv_vlan')[0]!.options).toEqual({ device: 'iptv-br', vlan: '10', ports: ['eth0.45:u*', 'eth7:u*'] });
    expect(services.igmpproxy).toBeUndefined();
    expect(named(services.firewall, 'rule').map((s) => s.options.name)).not.toContain('Allow-IPTV-IGMP');
  });

  it('VPN clients: PPTP and L2TP as netifd interfaces in the WAN zone that never come up by themselves; IPsec as swanctl files', () => {
    const services = renderOpenwrtNetworkPackages(buildConfig(SERVICES));
    expect(named(services.network, 'interface', 'office')[0]!.options).toEqual({
      proto: 'l2tp',
      server: 'vpn.example.com',
      username: 'branch1',
      password: 'tunnel-pass',
      defaultroute: '0',
      peerdns: '0',
      auto: '0',
    });
    expect(named(services.network, 'interface', 'branch')[0]!.options).toMatchObject({ proto: 'pptp', server: '203.0.113.80', password: `it's \\ "q"`, defaultroute: '1' });
    expect(named(services.network, 'interface', 'off')).toEqual([]);
    expect(named(services.firewall, 'zone', 'wan')[0]!.options.network).toEqual(['wan1', 'wan2', 'office', 'branch']);
    const rendered = files(buildConfig(SERVICES));
    const connections = rendered.get(OPENWRT_SWANCTL_FILES.connections)!.content;
    expect(connections).toContain(`include ${OPENWRT_SWANCTL_FILES.secrets}\n`);
    expect(connections).toContain('start_action = none');
    for (const target of [OPENWRT_SWANCTL_FILES.connections, OPENWRT_SWANCTL_FILES.secrets]) expect(checkSwanctl(rendered.get(target)!.content), target).toEqual([]);
  });
});

describe('hostile values', () => {
  const HOSTILE = ["pass'word", `a'\\''b`, '$(reboot)', '`id`', "x'; option proto 'none", "' config rule 'evil", 'a"b\\c #d'];

  function shape(pkg: UciPackage) {
    return pkg.map((s) => `${s.type} ${s.name ?? ''}: ${Object.keys(s.options).join(',')}`);
  }

  it('a PPPoE password with quotes, $(), backticks and semicolons stays one value of one option', () => {
    const baseline = renderOpenwrtNetworkPackages(buildConfig(REPRESENTATIVE)).network;
    for (const password of HOSTILE) {
      const input: ConfigInput = {
        ...REPRESENTATIVE,
        interfaces: REPRESENTATIVE.interfaces.map((row) => ((row as { ifname: string }).ifname === 'wan2' ? { ...row, pppoe_password: password } : row)),
      };
      const [output] = renderOpenwrtNetwork(buildConfig(input));
      const parsed = parseUci(output!.files[0]!.content);
      expect(shape(parsed), password).toEqual(shape(baseline));
      expect(named(parsed, 'interface', 'wan2')[0]!.options.password).toBe(password);
    }
  });

  it('a tunnel password with quotes, $() and backticks stays one value of one option', () => {
    const baseline = renderOpenwrtNetworkPackages(buildConfig(SERVICES)).network;
    for (const password of HOSTILE) {
      const input: ConfigInput = { ...SERVICES, vpnClients: SERVICES.vpnClients.map((row) => ((row as { name: string }).name === 'branch' ? { ...row, password } : row)) };
      const parsed = parseUci(renderOpenwrtNetwork(buildConfig(input))[0]!.files[0]!.content);
      expect(shape(parsed), password).toEqual(shape(baseline));
      expect(named(parsed, 'interface', 'branch')[0]!.options.password).toBe(password);
    }
  });

  it('comments never reach a file, whatever they hold', () => {
    const comment = "x'; config rule 'evil' $(reboot) `id`";
    const input: ConfigInput = {
      ...REPRESENTATIVE,
      dhcpStatic: REPRESENTATIVE.dhcpStatic.map((row) => ({ ...row, comment })),
      staticRoutes: REPRESENTATIVE.staticRoutes.map((row) => ({ ...row, comment })),
    };
    const before = renderOpenwrtNetwork(buildConfig(REPRESENTATIVE))[0]!.files.map((f) => f.content);
    const after = renderOpenwrtNetwork(buildConfig(input))[0]!.files.map((f) => f.content);
    expect(after).toEqual(before);
  });

  it('a host name the schema would refuse is refused by the renderer too, not written', () => {
    const config = buildConfig(REPRESENTATIVE);
    for (const hostname of ["o'brien", 'a;b', '$(reboot)', "x' option ip '1.2.3.4"]) {
      const hostile: NetworkConfig = { ...config, dhcpStatic: [{ ...config.dhcpStatic[0]!, hostname }] };
      expect(() => renderOpenwrtNetwork(hostile), hostname).toThrow(RenderValueError);
    }
  });

  it('a control character anywhere is refused, never written', () => {
    const config = buildConfig(REPRESENTATIVE);
    const row = config.interfaces.find((r) => r.ifname === 'wan2')!;
    const hostile: NetworkConfig = { ...config, interfaces: config.interfaces.map((r) => (r === row ? { ...r, pppoe_password: "x'\nconfig rule 'evil" } : r)) };
    expect(() => renderOpenwrtNetwork(hostile)).toThrow();
  });

  it('an interface named like a section the renderer writes itself is refused', () => {
    const config = buildConfig(PLAIN_LINKS);
    const hostile: NetworkConfig = { ...config, interfaces: config.interfaces.map((r) => (r.ifname === 'office' ? { ...r, ifname: 'loopback' } : r)), vlans: [] };
    expect(() => renderOpenwrtNetwork(hostile)).toThrow(RenderValueError);
  });
});

describe('the uci checker', () => {
  it('passes every rendered file and names the line of a broken one', () => {
    for (const [, input] of FIXTURES) {
      for (const file of files(buildConfig(input)).values()) if (file.check === 'uci') expect(checkUci(file.content), file.target).toBeNull();
    }
    expect(checkUci("config interface 'lan'\n\toption proto 'static\n")).toMatch(/line 2/);
    expect(checkUci('config interface lan\n\tfrobnicate x y\n')).toMatch(/line 2/);
    expect(checkUci('config interface lan\0\n')).toBe('NUL byte');
  });
});
