import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NETWORK_FILES, TOLERANT_BATCHES, type NetworkConfig } from '../src/domains/network/network-config.js';
import { checkIpBatch } from '../src/domains/network/network-ip-batch.js';
import { planNetwork } from '../src/domains/network/network-plan.js';
import { renderNetwork } from '../src/domains/network/network-render.js';
import { checkSysctl } from '../src/domains/network/network-sysctl.js';
import { cidr4, device, hostLabel, mac, nftString, RenderValueError } from '../src/domains/network/network-syntax.js';
import { ALTERNATE, buildConfig, REPRESENTATIVE } from './network-fixture.js';

const here = dirname(fileURLToPath(import.meta.url));
const goldenDir = join(here, 'golden', 'network');
const update = process.env.UPDATE_GOLDEN === '1';

function files(config: NetworkConfig): Map<string, { content: string; check: string }> {
  const [output] = renderNetwork(config);
  expect(output!.domain).toBe('network');
  return new Map(output!.files.map((f) => [f.target, { content: f.content, check: f.check }]));
}

describe('golden files (UPDATE_GOLDEN=1 rewrites them)', () => {
  for (const [name, input] of [
    ['representative', REPRESENTATIVE],
    ['alternate', ALTERNATE],
  ] as const) {
    it(`${name}: every rendered file equals its golden copy`, () => {
      const dir = join(goldenDir, name);
      const rendered = files(buildConfig(input));
      for (const [target, { content }] of rendered) {
        const golden = join(dir, basename(target));
        if (update) {
          mkdirSync(dir, { recursive: true });
          writeFileSync(golden, content);
        }
        expect(existsSync(golden), `${golden} (run with UPDATE_GOLDEN=1 once)`).toBe(true);
        expect(content, target).toBe(readFileSync(golden, 'utf8'));
      }
    });
  }
});

describe('what the network renderer writes', () => {
  const rep = files(buildConfig(REPRESENTATIVE));
  const alt = files(buildConfig(ALTERNATE));

  it('renders the files in apply order, each with its checker', () => {
    expect([...rep.keys()]).toEqual([
      NETWORK_FILES.nftables,
      NETWORK_FILES.linksBatch,
      NETWORK_FILES.ethtool,
      NETWORK_FILES.sysctl,
      NETWORK_FILES.stateBatch,
      NETWORK_FILES.routesBatch,
      NETWORK_FILES.wanHealth,
      NETWORK_FILES.wanDhcp,
      NETWORK_FILES.dnsmasq,
      '/etc/portico/ppp/wan2.options',
      '/etc/portico/ppp/wan2.secret',
      NETWORK_FILES.swanctl,
      NETWORK_FILES.swanctlSecrets,
      NETWORK_FILES.xl2tpd,
      '/etc/portico/ppp/vpn1.options',
      '/etc/portico/ppp/vpn1.secret',
      NETWORK_FILES.dialledLinks,
    ]);
    expect([...rep.values()].map((f) => f.check)).toEqual([
      'nft',
      'ip-batch',
      'none',
      'sysctl',
      'ip-batch',
      'ip-batch',
      'none',
      'none',
      'dnsmasq',
      'pppd',
      'ppp-secret',
      'swanctl',
      'swanctl',
      'xl2tpd',
      'pppd',
      'ppp-password',
      'none',
    ]);
    expect(alt.get(NETWORK_FILES.igmpproxy)?.check).toBe('none');
    expect(TOLERANT_BATCHES.has(NETWORK_FILES.stateBatch)).toBe(false);
  });

  it('is pure: the same configuration renders the same bytes', () => {
    const again = files(buildConfig(REPRESENTATIVE));
    for (const [target, file] of rep) expect(again.get(target)!.content).toBe(file.content);
  });

  it('passes its own ip batch and sysctl syntax checks', () => {
    for (const rendered of [rep, alt]) {
      for (const [target, file] of rendered) {
        if (file.check === 'ip-batch') expect(checkIpBatch(file.content), target).toEqual([]);
        if (file.check === 'sysctl') expect(checkSysctl(file.content), target).toEqual([]);
      }
    }
  });

  it('nftables: one inet portico table, base chains drop, declared then flushed, extension chains', () => {
    const nft = rep.get(NETWORK_FILES.nftables)!.content;
    const lines = nft.split('\n');
    expect(lines.slice(1, 3)).toEqual(['table inet portico {}', 'flush table inet portico']);
    expect(nft).toContain('type filter hook input priority filter; policy drop;');
    expect(nft).toContain('type filter hook forward priority filter; policy drop;');
    expect(nft).toContain('type filter hook output priority filter; policy accept;');
    for (const chain of ['input_rules', 'forward_rules', 'wan_to_device', 'lan_to_device', 'arp_guard_input', 'arp_guard_forward']) {
      expect(nft).toContain(`\tchain ${chain} {`);
    }
    expect(nft).toContain('ct state established,related accept');
    expect(nft).toContain('iif "lo" accept');
    expect(nft).toContain('iifname @lan_ifaces oifname @wan_ifaces accept');
    expect(nft).toContain('tcp dport { 80, 443 } accept');
    expect(nft).toContain('elements = { 00:11:22:33:44:55 . 192.168.1.10, 00:11:22:33:44:77 . 192.168.1.20 }');
    expect(nft).toContain('ip saddr @arp_bound ether saddr . ip saddr != @arp_pairs drop');
    expect(nft).toMatch(/table ip portico_nat \{\}\nflush table ip portico_nat\n/);
    expect(nft).toContain('oifname { "eth0", "ppp-wan2", "vpn-office" } masquerade');
    // IPsec peer networks keep their addresses.
    expect(nft).toContain('ip daddr { 10.50.0.0/16, 10.51.0.0/16 } return');
    expect((nft.match(/^table inet /gm) ?? []).every((l) => l === 'table inet ')).toBe(true);
    expect(new Set(nft.match(/^table \S+ \S+/gm))).toEqual(new Set(['table inet portico', 'table ip portico_nat']));
  });

  it('ARP authentication: drop stops unbound IPv4 clients but not DHCP; redirect sends their web requests to the notice port', () => {
    const drop = rep.get(NETWORK_FILES.nftables)!.content;
    expect(drop).toContain('udp sport 68 udp dport 67 return');
    expect(drop).toContain('ip saddr != @arp_bound drop');
    expect(drop).not.toContain('redirect to');
    const redirect = alt.get(NETWORK_FILES.nftables)!.content;
    expect(redirect).toContain('ip saddr != @arp_bound tcp dport 80 redirect to :2060');
    const off = files(buildConfig({ ...REPRESENTATIVE, arpAuth: { enabled: false } })).get(NETWORK_FILES.nftables)!.content;
    expect(off).not.toContain('ip saddr != @arp_bound drop');
    expect(off).toContain('ip saddr @arp_bound ether saddr . ip saddr != @arp_pairs drop');
  });

  it('multi-WAN: a table, a mark and a rule per WAN; balance members share one multipath route', () => {
    const state = alt.get(NETWORK_FILES.stateBatch)!.content;
    expect(state).toContain('rule add priority 10000 lookup main suppress_prefixlength 0 protocol static');
    expect(state).toContain('rule add priority 10102 fwmark 0x00000200/0x0000ff00 lookup 102 protocol static');
    expect(state).toContain('route replace default proto static metric 10 nexthop via 198.51.100.1 dev eth0 weight 3 nexthop via 203.0.113.1 dev eth1.7 weight 1');
    expect(state).toContain('route replace 203.0.113.99/32 via 203.0.113.1 dev eth1.7 proto static');
    // Failover members get a metric after the balance ones, by priority.
    expect(rep.get(NETWORK_FILES.stateBatch)!.content).toContain('installs the routes (table 102, metric 102)');
    const single = files(buildConfig({ ...REPRESENTATIVE, interfaces: REPRESENTATIVE.interfaces.filter((i) => (i as { ifname: string }).ifname !== 'wan2'), multiWan: [] }));
    expect(single.get(NETWORK_FILES.stateBatch)!.content).not.toContain('rule add');
    expect(single.get(NETWORK_FILES.nftables)!.content).not.toContain('wan_mark');
  });

  it('dnsmasq: LAN-side devices only, pools from start and size, static hosts, DHCPv6, leases under /var/lib/portico', () => {
    const conf = rep.get(NETWORK_FILES.dnsmasq)!.content;
    expect(conf).toContain('bind-dynamic\ninterface=br-lan\ninterface=eth3.20\n');
    expect(conf).not.toMatch(/interface=eth0|interface=ppp/);
    expect(conf).toContain('dhcp-range=set:lan,192.168.1.100,192.168.1.199,255.255.255.0,720m');
    expect(conf).toContain('dhcp-range=set:guest,192.168.20.10,192.168.20.254,255.255.255.0,60m');
    expect(conf).toContain('dhcp-host=00:11:22:33:44:55,192.168.1.10,printer\ndhcp-host=00:11:22:33:44:66,192.168.1.11\n');
    expect(conf).toContain('dhcp-range=set:lan,::,constructor:br-lan,ra-stateless,720m');
    expect(conf).toContain('dhcp-leasefile=/var/lib/portico/dnsmasq.leases');
    expect(conf).toContain('server=198.51.100.53@eth0');
    // wan2 learns its DNS servers from PPPoE: they come through the resolv file.
    expect(conf).toContain('resolv-file=/run/portico/resolv.wan');
    const fixedDns = files(buildConfig({ ...REPRESENTATIVE, interfaces: REPRESENTATIVE.interfaces.map((i) => ({ ...i, dns: ['198.51.100.53'] })) }));
    expect(fixedDns.get(NETWORK_FILES.dnsmasq)!.content).toContain('no-resolv');
    expect(alt.get(NETWORK_FILES.dnsmasq)!.content).toContain('dhcp-range=set:lan,::1000,::ffff,constructor:bond-lan,64,1440m\nenable-ra\n');
  });

  it('comments and passwords never reach a file', () => {
    const all = [...rep.values(), ...alt.values()].map((f) => f.content).join('\n');
    for (const secret of ['secret-1', 'tunnel-pass', 'pre-shared key 1', 'Office printer', 'Branch office', 'NAS; no host name']) {
      expect(all).not.toContain(secret);
    }
  });

  it('disabled interfaces, routes and clients are left out; their ports go down', () => {
    const state = alt.get(NETWORK_FILES.stateBatch)!.content;
    expect(state).toContain('link set dev eth5 mtu 1450 down');
    expect(state).not.toContain('172.16.5.1');
    expect(alt.get(NETWORK_FILES.routesBatch)!.content).not.toContain('198.18.0.0/15');
    expect(alt.get(NETWORK_FILES.nftables)!.content).not.toContain('vpn-cloud');
  });

  it('plans devices: bridges, bonds, tagged and PPPoE WANs, 802.1Q and MAC-based sub-interfaces', () => {
    const plan = planNetwork(buildConfig(ALTERNATE));
    const byName = Object.fromEntries(plan.interfaces.map((i) => [i.name, [i.l2, i.link, i.l3]]));
    expect(byName.lan).toEqual(['bond-lan', 'bond-lan', 'bond-lan']);
    expect(byName.wan2).toEqual(['eth1', 'eth1.7', 'eth1.7']);
    expect(plan.subInterfaces.map((s) => [s.kind, s.device])).toEqual([['macvlan', 'eth7-30']]);
    const repPlan = planNetwork(buildConfig(REPRESENTATIVE));
    expect(repPlan.interfaces.find((i) => i.name === 'wan2')!.l3).toBe('ppp-wan2');
    expect(repPlan.interfaces.find((i) => i.name === 'lan')!.l2).toBe('br-lan');
    expect(repPlan.subInterfaces.map((s) => [s.kind, s.device])).toEqual([['vlan', 'eth3.20']]);
    expect(plan.iptv).toEqual({ type: 'igmp', upstream: 'eth1.45', upstreamVlan: { lower: 'eth1', tag: 45 }, lantag: 100, downstream: 'eth6' });
  });

  it('IPTV bridge mode joins the ISP VLAN and the set-top port in a bridge on the LAN tag', () => {
    const input = { ...ALTERNATE, iptv: { enable: true, type: 'bridge', wan: 'wan2', wantag: 45, lantag: 200, portnum: 'eth8' } };
    const rendered = files(buildConfig(input));
    const links = rendered.get(NETWORK_FILES.linksBatch)!.content;
    expect(links).toContain('link add name iptv-br type bridge\n');
    expect(links).toContain('link add link eth1 name eth1.45 type vlan id 45\n');
    expect(links).toContain('link set dev eth8 master iptv-br\n');
    const state = rendered.get(NETWORK_FILES.stateBatch)!.content;
    expect(state).toContain('link set dev iptv-br type bridge vlan_filtering 1 vlan_default_pvid 200\nlink set dev eth1.45 master iptv-br\nlink set dev iptv-br up\n');
    expect(rendered.has(NETWORK_FILES.igmpproxy)).toBe(false);
  });
});

describe('the last line of defence before a file', () => {
  it('refuses values that are not exactly the expected token', () => {
    for (const bad of ['eth0\n', 'eth 0', 'a'.repeat(16), '..', 'x/y', 'eth0"', '']) expect(() => device(bad), JSON.stringify(bad)).toThrow();
    expect(() => nftString('a";flush ruleset;"')).toThrow(RenderValueError);
    expect(() => nftString('lan\u0000')).toThrow(/control character/);
    expect(() => mac('00:11:22:33:44:5G')).toThrow(RenderValueError);
    expect(() => mac('AA:BB:CC:DD:EE:FF')).toThrow(RenderValueError);
    expect(() => hostLabel('printer.lan')).toThrow(RenderValueError);
    expect(() => cidr4('10.0.0.0/8\ndhcp-script=/x')).toThrow();
    expect(nftString('br-lan')).toBe('"br-lan"');
  });

  it('a row that bypassed validation makes the render throw instead of writing it', () => {
    const config = buildConfig(REPRESENTATIVE);
    const tampered = { ...config, dhcpStatic: [{ ...config.dhcpStatic[0]!, hostname: 'x\ndhcp-script=/tmp/x' }] };
    expect(() => renderNetwork(tampered)).toThrow();
    const quoted = { ...config, interfaces: config.interfaces.map((i) => (i.ifname === 'lan' ? { ...i, ifname: 'a";flush' } : i)) };
    expect(() => renderNetwork(quoted)).toThrow();
  });

  it('the ip batch checker finds what ip would misread', () => {
    expect(checkIpBatch('link set dev eth0 up\n')).toEqual([]);
    expect(checkIpBatch('link set dev eth0 up')).toEqual(['file does not end with a newline']);
    expect(checkIpBatch('link set dev eth0 up # note\n')).toEqual(['line 1: unexpected token']);
    expect(checkIpBatch('tunnel add x\n')).toEqual(['line 1: unknown object tunnel']);
    expect(checkIpBatch('route delete default\n')).toEqual(['line 1: unknown verb delete']);
    expect(checkIpBatch('link set dev eth0;reboot up\n')).toEqual(['line 1: unexpected token']);
    expect(checkIpBatch('link set  dev eth0 up\n')).toEqual(['line 1: unexpected token']);
    expect(checkIpBatch('link set dev eth0\u2028up\n')).toEqual(['line 1: control character']);
    expect(checkSysctl('net.ipv4.ip_forward = 1\n')).toEqual([]);
    expect(checkSysctl('net.ipv4.ip_forward = 1; reboot\n')).toEqual(['line 1: not a key = integer line']);
  });
});
