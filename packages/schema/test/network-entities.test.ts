import { describe, expect, it } from 'vitest';
import { fieldErrors, writeSchema, type AnyEntity } from '../src/entity/define-entity.js';
import { ENTITIES, entityByPath } from '../src/entity/entity-registry.js';
import { MENU_MAP } from '../src/menu/menu-map.js';
import {
  arpAuth,
  arpBind,
  dhcpServer,
  dhcpStatic,
  iptv,
  isHttpUrl,
  multiWan,
  networkInterface,
  parsePeerSubnets,
  portAttribute,
  staticRoute,
  vlan,
  vpnClient,
} from '../src/network/index.js';
import { SAMPLE_INPUT } from './network-samples.js';

const any = (e: unknown) => e as AnyEntity;

/** Field errors of a write, `{}` when accepted. */
function errorsOf(entity: unknown, input: object, mode: 'add' | 'update' = 'add'): Record<string, string> {
  const result = writeSchema(any(entity), mode).safeParse(input);
  return result.success ? {} : fieldErrors(result.error);
}

function parse(entity: unknown, input: object, mode: 'add' | 'update' = 'add'): Record<string, unknown> {
  const result = writeSchema(any(entity), mode).safeParse(input);
  if (!result.success) throw new Error(JSON.stringify(fieldErrors(result.error)));
  return result.data as Record<string, unknown>;
}

const strip = <T extends { id?: string }>(row: T) => {
  const { id: _id, ...rest } = row;
  return rest;
};
const wan1 = strip(SAMPLE_INPUT.networkInterface[0]);
const wan2 = strip(SAMPLE_INPUT.networkInterface[1]);
const lan = strip(SAMPLE_INPUT.networkInterface[2]);

describe('network declarations', () => {
  it('registers each Network entity once with the API path of spec §7 and a module of the menu', () => {
    const expected: Record<string, string> = {
      network: 'networkInterface',
      dhcp: 'dhcpServer',
      dhcpstatic: 'dhcpStatic',
      staticroute: 'staticRoute',
      arpbind: 'arpBind',
      arpauth: 'arpAuth',
      vlan: 'vlan',
      vwan: 'multiWan',
      portattr: 'portAttribute',
      iptv: 'iptv',
      vpnclient: 'vpnClient',
    };
    for (const [path, name] of Object.entries(expected)) expect(entityByPath(path)?.name, path).toBe(name);
    const modules = new Set(MENU_MAP.flatMap((s) => s.children.map((c) => c.module)));
    // A page or one of its sub-routes (a singleton such as ARP authentication lives on /behavior).
    const routes = new Set(
      MENU_MAP.flatMap((s) =>
        s.children.flatMap((c) => {
          const base = `${s.path === '/' ? '' : s.path}${c.path}`;
          return [base, ...(c.sub ?? []).map((sub) => `${base}/${sub}`)];
        }),
      ),
    );
    for (const name of Object.values(expected)) {
      const entity = ENTITIES.find((e) => e.name === name)!;
      expect(modules.has(entity.module), `${name} module ${entity.module}`).toBe(true);
      if (entity.route) expect(routes.has(entity.route), entity.route).toBe(true);
    }
  });

  it('accepts every sample row and fills the spec defaults', () => {
    const byName = { networkInterface, vlan, dhcpServer, dhcpStatic, staticRoute, arpBind, multiWan, portAttribute, vpnClient, iptv, arpAuth };
    for (const [name, rows] of Object.entries(SAMPLE_INPUT)) {
      for (const row of rows as readonly object[]) {
        const { id, ...rest } = row as { id?: string };
        expect(errorsOf(byName[name as keyof typeof byName], rest, id ? 'add' : 'update'), `${name} ${id}`).toEqual({});
      }
    }
    const stored = parse(networkInterface, { ifname: 'lan2', role: 'lan', hwport: ['eth5'], ipaddr: '192.168.5.1', netmask: '255.255.255.0' });
    expect(stored).toMatchObject({ proto: 'static', mtu: 1450, mru: 1450, vlan_tag: 0, ipv6: 'off', subif_type: 'none', enabled: true, dns: [], secondary: [] });
    expect(parse(iptv, {}, 'update')).toMatchObject({ enable: false, lantag: 100, wantag: 0 });
    expect(parse(dhcpServer, { interface: 'lan', start: '192.168.1.100', netmask: '255.255.255.0' })).toMatchObject({ pool_size: 100, lease_minutes: 720, dhcpv6: 'off' });
  });

  it('never returns secrets: passwords and keys are write-only', () => {
    expect(networkInterface.writeOnly).toEqual(['pppoe_password']);
    expect(vpnClient.writeOnly).toEqual(['password', 'psk']);
  });
});

describe('interfaces', () => {
  it('a LAN or bond is static; a static interface needs address and netmask, a static WAN its gateway', () => {
    expect(errorsOf(networkInterface, { ...lan, proto: 'dhcp' })).toEqual({ proto: 'validation.network.staticOnly' });
    expect(errorsOf(networkInterface, { ...wan1, ipaddr: '', netmask: '', gateway: '' })).toEqual({
      ipaddr: 'validation.required',
      netmask: 'validation.required',
      gateway: 'validation.required',
    });
    expect(errorsOf(networkInterface, { ...wan1, gateway: '203.0.113.9' })).toEqual({ gateway: 'validation.network.gatewaySubnet' });
    expect(errorsOf(networkInterface, { ...wan1, gateway: '203.0.113.2' })).toEqual({ gateway: 'validation.ipOverlap' });
    expect(errorsOf(networkInterface, { ...lan, ipaddr: '192.168.1.0' })).toEqual({ ipaddr: 'validation.network.hostAddress' });
    expect(errorsOf(networkInterface, { ...lan, ipaddr: '192.168.1.255' })).toEqual({ ipaddr: 'validation.network.hostAddress' });
  });

  it('port counts: one for a WAN, two or more for a bond, no port twice', () => {
    expect(errorsOf(networkInterface, { ...wan1, hwport: ['eth0', 'eth5'] })).toEqual({ hwport: 'validation.network.portCount' });
    expect(errorsOf(networkInterface, { ...lan, role: 'bond', hwport: ['eth2'] })).toEqual({ hwport: 'validation.network.portCount' });
    expect(errorsOf(networkInterface, { ...lan, hwport: [] })).toEqual({ hwport: 'validation.network.portCount' });
    expect(errorsOf(networkInterface, { ...lan, hwport: ['eth2', 'eth2'] })).toEqual({ hwport: 'validation.network.portInUse' });
    expect(errorsOf(networkInterface, { ...lan, hwport: ['eth2', 'eth 3'] })).toEqual({ hwport: 'validation.hwport' });
    expect(errorsOf(networkInterface, { ...lan, role: 'bond', hwport: ['eth2', 'eth3'] })).toEqual({});
  });

  it('secondary IPs: "Secondary IP/Mask Format Error" and "IP overlay" (spec §8)', () => {
    for (const bad of ['10.0.0.1', '10.0.0.1/33', '10.0.0.1/255.0.255.0', '10.0.0.1/0', 'x/24', '10.0.0.1/24 ']) {
      expect(errorsOf(networkInterface, { ...lan, secondary: [bad] }), bad).toEqual({ secondary: 'validation.secondaryIp' });
    }
    expect(errorsOf(networkInterface, { ...lan, secondary: ['10.0.0.1/255.255.255.0', '10.0.1.1/24'] })).toEqual({});
    // The primary address again, the same address twice, or overlapping networks of different sizes.
    expect(errorsOf(networkInterface, { ...lan, secondary: ['192.168.1.1/24'] })).toEqual({ secondary: 'validation.ipOverlap' });
    expect(errorsOf(networkInterface, { ...lan, secondary: ['10.0.0.1/24', '10.0.0.1/24'] })).toEqual({ secondary: 'validation.ipOverlap' });
    expect(errorsOf(networkInterface, { ...lan, secondary: ['192.168.0.1/16'] })).toEqual({ secondary: 'validation.ipOverlap' });
    // An alias in the same network as the primary is fine (several addresses of one block).
    expect(errorsOf(networkInterface, { ...wan1, secondary: ['203.0.113.3/29'] })).toEqual({});
  });

  it('MTU and MRU are 46-1500 (spec §5); WAN tag 0-4094', () => {
    expect(errorsOf(networkInterface, { ...wan1, mtu: 45 })).toEqual({ mtu: 'validation.mtu.range' });
    expect(errorsOf(networkInterface, { ...wan1, mtu: 1501 })).toEqual({ mtu: 'validation.mtu.range' });
    expect(errorsOf(networkInterface, { ...wan2, mru: 1501 })).toEqual({ mru: 'validation.mru.range' });
    expect(errorsOf(networkInterface, { ...wan2, vlan_tag: 4095 })).toEqual({ vlan_tag: 'validation.wanTag.range' });
    expect(errorsOf(networkInterface, { ...wan2, vlan_tag: 0 })).toEqual({});
  });

  it('PPPoE needs an account, and a password when added; the password may be any printable text', () => {
    expect(errorsOf(networkInterface, { ...wan2, pppoe_username: '', pppoe_password: undefined })).toEqual({
      pppoe_username: 'validation.required',
      pppoe_password: 'validation.required',
    });
    expect(errorsOf(networkInterface, { ...wan2, id: 'if-wan2', pppoe_password: undefined }, 'update')).toEqual({});
    expect(errorsOf(networkInterface, { ...wan2, pppoe_username: '-o' })).toEqual({ pppoe_username: 'validation.account' });
    expect(errorsOf(networkInterface, { ...wan2, pppoe_password: 'p@ss "word"' })).toEqual({});
    expect(errorsOf(networkInterface, { ...wan2, pppoe_password: 'a\nb' })).toEqual({ pppoe_password: 'validation.text.control' });
  });

  it('MAC-based sub-interfaces need a single-port, non-bond interface; static IPv6 needs its address', () => {
    expect(errorsOf(networkInterface, { ...lan, subif_type: 'mac' })).toEqual({ subif_type: 'validation.subif.macSinglePort' });
    expect(errorsOf(networkInterface, { ...wan1, subif_type: 'mac' })).toEqual({});
    expect(errorsOf(networkInterface, { ...lan, ip6addr: '' })).toEqual({ ip6addr: 'validation.required' });
    expect(errorsOf(networkInterface, { ...lan, ip6addr: 'fd00:1::1' })).toEqual({ ip6addr: 'validation.cidr6' });
  });

  it('interface names are short lower-case identifiers usable in device names', () => {
    for (const bad of ['Lan', '1lan', 'lan-1', 'lan.1', 'a'.repeat(11), 'br lan', '']) {
      expect(errorsOf(networkInterface, { ...lan, ifname: bad }).ifname, bad).toMatch(/^validation\.(ifname|required)$/);
    }
  });

  it('hides proto-dependent fields with visibility rules', () => {
    const fields = Object.fromEntries(networkInterface.form!.tabs.flatMap((t) => t.fields).map((f) => [f.name, f]));
    expect(fields.gateway!.visibleWhen).toEqual({ field: 'proto', equals: 'static' });
    expect(fields.pppoe_password!.visibleWhen).toEqual({ field: 'proto', equals: 'pppoe' });
    expect(fields.mru!.visibleWhen).toEqual({ field: 'proto', equals: 'pppoe' });
    expect(fields.vlan_tag!.visibleWhen).toEqual({ field: 'role', equals: 'wan' });
  });
});

describe('other Network entities', () => {
  it('VLAN tag 1-4094; address and netmask go together', () => {
    const guest = strip(SAMPLE_INPUT.vlan[0]);
    expect(errorsOf(vlan, { ...guest, tag: 0 })).toEqual({ tag: 'validation.vlan.range' });
    expect(errorsOf(vlan, { ...guest, tag: 4095 })).toEqual({ tag: 'validation.vlan.range' });
    expect(errorsOf(vlan, { ...guest, netmask: '' })).toEqual({ netmask: 'validation.required' });
    expect(errorsOf(vlan, { ...guest, ipaddr: '', netmask: '' })).toEqual({});
    expect(errorsOf(vlan, { ...guest, mac: 'zz' })).toEqual({ mac: 'validation.mac' });
  });

  it('DHCP: lease 2-525600 minutes, pool size 0 (to the end) or more', () => {
    const server = strip(SAMPLE_INPUT.dhcpServer[0]);
    expect(errorsOf(dhcpServer, { ...server, lease_minutes: 1 })).toEqual({ lease_minutes: 'validation.dhcp.lease' });
    expect(errorsOf(dhcpServer, { ...server, pool_size: -1 })).toEqual({ pool_size: 'validation.limit.range' });
    expect(errorsOf(dhcpServer, { ...server, netmask: '255.0.255.0' })).toEqual({ netmask: 'validation.netmask' });
  });

  it('static leases: a unicast MAC (stored lower-case), a host name without dots', () => {
    const lease = strip(SAMPLE_INPUT.dhcpStatic[0]);
    expect(parse(dhcpStatic, { ...lease, mac: 'AA-BB-CC-DD-EE-FF'.replace('AA', 'A8') })).toMatchObject({ mac: 'a8:bb:cc:dd:ee:ff' });
    expect(errorsOf(dhcpStatic, { ...lease, mac: '01:00:5e:00:00:01' })).toEqual({ mac: 'validation.macUnicast' });
    expect(errorsOf(dhcpStatic, { ...lease, hostname: 'printer.lan' })).toEqual({ hostname: 'validation.hostnameLabel' });
    expect(errorsOf(dhcpStatic, { ...lease, hostname: '-x' })).toEqual({ hostname: 'validation.hostname' });
  });

  it('static routes need a network target and a gateway or an interface', () => {
    const route = strip(SAMPLE_INPUT.staticRoute[0]);
    expect(errorsOf(staticRoute, { ...route, target: '10.20.0.1/16' })).toEqual({ target: 'validation.cidrHostBits' });
    expect(errorsOf(staticRoute, { ...route, gateway: '', interface: '' })).toEqual({ gateway: 'validation.staticRoute.via' });
    expect(errorsOf(staticRoute, { ...route, gateway: '' })).toEqual({});
    expect(errorsOf(staticRoute, { ...route, metric: 10_000 })).toEqual({ metric: 'validation.metric.range' });
  });

  it('ARP authentication: redirect needs an http(s) URL', () => {
    expect(errorsOf(arpAuth, { enabled: true, auth_action: 'redirect', jurl: '' }, 'update')).toEqual({ jurl: 'validation.required' });
    expect(errorsOf(arpAuth, { enabled: true, auth_action: 'redirect', jurl: 'https://portal.example.com/bind?x=1' }, 'update')).toEqual({});
    for (const bad of ['javascript:alert(1)', 'http://user:pw@example.com/', 'http://exa mple.com/', 'ftp://example.com/', 'http://', 'http://a.com/\n']) {
      expect(isHttpUrl(bad), bad).toBe(false);
    }
  });

  it('multi-WAN weight 1-100, priority 1-99; port link modes are listed', () => {
    const entry = strip(SAMPLE_INPUT.multiWan[0]);
    expect(errorsOf(multiWan, { ...entry, weight: 0 })).toEqual({ weight: 'validation.multiWan.weight' });
    expect(errorsOf(multiWan, { ...entry, priority: 100 })).toEqual({ priority: 'validation.multiWan.priority' });
    expect(errorsOf(multiWan, { ...entry, track_ips: ['1.1.1.1', '8.8.8.8', '9.9.9.9', '1.0.0.1', '8.8.4.4'] })).toEqual({ track_ips: 'validation.tooBig' });
    expect(errorsOf(portAttribute, { port: 'eth0', link_mode: '1000half' })).toEqual({ link_mode: 'validation.option' });
  });

  it('IPTV: lantag defaults to 100, range 1-4094; wantag 0-4094; bridge mode needs a wantag', () => {
    const tv = { enable: true, type: 'bridge', wan: 'wan2', wantag: 45, portnum: 'eth4' };
    expect(parse(iptv, tv, 'update')).toMatchObject({ lantag: 100 });
    expect(errorsOf(iptv, { ...tv, lantag: 0 }, 'update')).toEqual({ lantag: 'validation.lanTag.range' });
    expect(errorsOf(iptv, { ...tv, wantag: 4095 }, 'update')).toEqual({ wantag: 'validation.wanTag.range' });
    expect(errorsOf(iptv, { ...tv, wantag: 0 }, 'update')).toEqual({ wantag: 'validation.iptv.bridgeTag' });
    expect(errorsOf(iptv, { ...tv, type: 'igmp', wantag: 0 }, 'update')).toEqual({});
    expect(errorsOf(iptv, { enable: true, type: 'igmp' }, 'update')).toEqual({ wan: 'validation.required', portnum: 'validation.required' });
  });

  it('VPN client IPsec rules (spec §5): space-separated peer subnets, one with IKEv1, different IDs', () => {
    const hq = strip(SAMPLE_INPUT.vpnClient[1]);
    expect(parsePeerSubnets('10.1.0.0/16 10.2.0.0/16')).toEqual(['10.1.0.0/16', '10.2.0.0/16']);
    for (const bad of ['10.1.0.0/16,10.2.0.0/16', '10.1.0.0/16  10.2.0.0/16', ' 10.1.0.0/16', '10.1.0.1/16', '10.1.0.0']) {
      expect(parsePeerSubnets(bad), bad).toBeNull();
    }
    expect(errorsOf(vpnClient, { ...hq, ike: 'ikev1' })).toEqual({ peer_subnets: 'validation.ipsec.ikev1Subnets' });
    expect(errorsOf(vpnClient, { ...hq, ike: 'ikev1', peer_subnets: '10.50.0.0/16' })).toEqual({});
    expect(errorsOf(vpnClient, { ...hq, remote_id: 'branch.example.com' })).toEqual({ remote_id: 'validation.ipsec.sameId' });
    expect(errorsOf(vpnClient, { ...hq, psk: undefined })).toEqual({ psk: 'validation.required' });
    expect(errorsOf(vpnClient, { ...hq, peer_subnets: '' })).toEqual({ peer_subnets: 'validation.required' });
    expect(errorsOf(vpnClient, { ...hq, server: 'vpn example' })).toEqual({ server: 'validation.hostOrIp' });
    const office = strip(SAMPLE_INPUT.vpnClient[0]);
    expect(errorsOf(vpnClient, { ...office, username: '', password: undefined })).toEqual({
      username: 'validation.required',
      password: 'validation.required',
    });
  });
});
