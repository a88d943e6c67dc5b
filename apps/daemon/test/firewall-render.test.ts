import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NETWORK_FILES } from '../src/domains/network/network-config.js';
import { networkDomain } from '../src/domains/network/network-domain.js';
import { firewallContributor } from '../src/domains/firewall/firewall-contributor.js';
import { conntrackDomain, CONNTRACK_FILES } from '../src/domains/firewall/firewall-conntrack.js';
import { checkSysctl } from '../src/domains/network/network-sysctl.js';
import { firewallSnapshot, FIREWALL_ROWS } from './firewall-fixture.js';
import { checkRendered } from './network-checker-run.js';
import { chainBody } from './network-fixture.js';

const work = mkdtempSync(join(tmpdir(), 'portico-fw-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const domain = networkDomain({ port: 8080, systemRoot: '/', driver: 'linux' }, [firewallContributor]);

function ruleset(rows: Record<string, object | object[]>): string {
  const output = domain.render!(firewallSnapshot(rows));
  return output[0]!.files.find((f) => f.target === NETWORK_FILES.nftables)!.content;
}

describe('the firewall part of the one network ruleset', () => {
  const text = ruleset(FIREWALL_ROWS);

  it('passes nft -c with every feature configured', async () => {
    const result = await checkRendered({ target: NETWORK_FILES.nftables, content: text, check: 'nft' }, work);
    if (result.skipped) console.info(result.skipped);
    else expect(result.problems).toEqual([]);
  });

  it('single-port mappings are one DNAT map; ranges and source-restricted ones are rules', () => {
    expect(text).toContain('"eth0" . tcp . 8080 : 192.168.1.10 . 80');
    // No WAN named: every WAN, both protocols, the external port kept.
    for (const dev of ['"eth0"', '"ppp-wan2"']) {
      for (const proto of ['tcp', 'udp']) expect(text).toContain(`${dev} . ${proto} . 27015 : 192.168.1.11 . 27015`);
    }
    const dnat = chainBody(text, 'fw_dstnat');
    expect(dnat).toContain('dnat ip to iifname . meta l4proto . th dport map @fw_dnat');
    expect(dnat).toContain('iifname "eth0" meta l4proto udp th dport 5000-5100 dnat ip to 192.168.1.12\n');
    expect(dnat).toContain('iifname "eth0" ip saddr 198.51.100.0/24 meta l4proto tcp th dport 2222 dnat ip to 192.168.1.13:22');
    expect(text).not.toContain('9999');
  });

  it('orders destination NAT: mappings, host mappings, then the DMZ (sparing the DHCP client)', () => {
    const dnat = chainBody(text, 'fw_dstnat');
    const at = (s: string) => dnat.indexOf(s);
    expect(at('map @fw_dnat')).toBeLessThan(at('map @fw_host_in'));
    expect(at('map @fw_host_in')).toBeLessThan(at('udp dport 68 return'));
    expect(at('udp dport 68 return')).toBeLessThan(at('fib daddr type local dnat ip to 192.168.1.30'));
    expect(text).toContain('"eth0" . 203.0.113.4 : 192.168.1.20');
    expect(chainBody(text, 'fw_srcnat')).toContain('snat ip to oifname . ip saddr map @fw_host_out');
  });

  it('NAT rules run before the base masquerade, in list order', () => {
    const snat = chainBody(text, 'fw_srcnat');
    expect(snat).toContain('ip saddr 192.168.1.0/24 ip daddr 10.20.0.0/16 accept');
    expect(snat).toContain('oifname "eth0" ip saddr 192.168.20.0/24 snat ip to 203.0.113.3');
    expect(snat).toContain('ip saddr 192.168.20.10-192.168.20.50 masquerade');
    expect(chainBody(text, 'postrouting_rules')).toContain('jump fw_srcnat');
  });

  it('filter rules keep list order and direction; forward order is limits, share block, filters, LAN forward, mapped', () => {
    const acl = chainBody(text, 'fw_acl_forward');
    expect(acl.indexOf('th dport 23 reject')).toBeLessThan(acl.indexOf('ip saddr 192.168.1.66 ip daddr 198.51.100.0/24 drop'));
    expect(acl).toContain('meta nfproto ipv4 meta l4proto udp th sport 1024-65535 th dport 53 accept');
    expect(chainBody(text, 'fw_acl_input')).toContain('iifname "eth0" ip protocol icmp drop');
    const forward = chainBody(text, 'forward_rules').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('chain'));
    expect(forward).toEqual([
      'iifname @lan_ifaces ct state new jump fw_connlimit',
      'iifname @fw_share_ifaces oifname @wan_ifaces jump fw_share',
      'jump fw_acl_forward',
      'iifname @fw_lan_forward oifname @fw_lan_forward accept',
      'ct status dnat accept',
    ]);
  });

  it('connection limits: exempt first, rows by address, then the spec defaults (per IP 3000, TCP 0 = none, UDP 800)', () => {
    const dispatch = chainBody(text, 'fw_connlimit');
    expect(dispatch).toContain('ip saddr @fw_cl_exempt return');
    expect(dispatch).toContain('ip saddr 192.168.1.0/28 goto fw_cl_r0');
    expect(dispatch).toContain('add @fw_cl_default_all { ip saddr ct count over 3000 } reject');
    expect(dispatch).toContain('meta l4proto udp add @fw_cl_default_udp { ip saddr ct count over 800 } reject');
    expect(dispatch).not.toContain('fw_cl_default_tcp');
    expect(chainBody(text, 'fw_cl_r1')).toContain('meta l4proto tcp add @fw_cl_r1_tcp { ip saddr ct count over 150 } reject with tcp reset');
    // Meters are kept across reloads: their counts are live state.
    expect(text).not.toContain('flush set inet portico fw_cl_default_all');
  });

  it('LAN forward leaves out isolated LANs; share block checks TTL except the white list', () => {
    const lanForward = text.split('\n').filter((l) => l.includes('set fw_lan_forward {') && l.includes('elements'));
    expect(lanForward).toHaveLength(1);
    expect(lanForward[0]).toContain('"br-lan", "eth3.20"');
    // With the guest LAN isolated one LAN is left: nothing to forward between.
    const isolated = ruleset({ ...FIREWALL_ROWS, firewallLanForward: { enabled: true, rejlan: ['guest'] } });
    expect(isolated).not.toContain('fw_lan_forward');
    expect(chainBody(text, 'fw_share')).toContain('ip ttl != { 64, 128, 255 } drop');
  });

  it('adds nothing but the default limits when no firewall row exists', async () => {
    const plain = ruleset({});
    expect(plain).not.toContain('fw_dstnat');
    expect(plain).toContain('fw_cl_default_all');
    const off = ruleset({ firewallSessionLimit: { enabled: false } });
    expect(off).not.toContain('fw_connlimit');
    const result = await checkRendered({ target: NETWORK_FILES.nftables, content: plain, check: 'nft' }, work);
    if (!result.skipped) expect(result.problems).toEqual([]);
  });
});

describe('long filter lists', () => {
  const host = (i: number) => `192.168.1.${i + 2}`;
  const exact = (i: number, extra: object = {}) => ({ name: `r${i}`, target: i % 3 === 0 ? 'accept' : i % 3 === 1 ? 'drop' : 'reject', proto: 'tcp', src: host(i), dport: String(1000 + i), ...extra });
  const rows = [
    ...Array.from({ length: 10 }, (_, i) => exact(i)),
    // A network breaks the run: it is a rule of its own, between the two maps.
    { name: 'net', target: 'accept', proto: 'tcp', src: '192.168.1.0/24', dport: '1001' },
    ...Array.from({ length: 9 }, (_, i) => exact(i + 20)),
    // The same key again later: the first rule keeps deciding.
    exact(20, { name: 'shadowed', target: 'accept' }),
    { name: 'both', target: 'drop', proto: 'tcpudp', src: host(50), dport: '53' },
  ];
  const text = ruleset({ firewallAcl: rows });
  const chain = chainBody(text, 'fw_acl_forward');

  it('runs of exact rules become verdict maps, in list order around the rules that are not', () => {
    const lines = chain.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('chain'));
    expect(lines).toEqual([
      'ip saddr . meta l4proto . th dport vmap @fw_acl_forward_0',
      'ip saddr 192.168.1.0/24 meta l4proto tcp th dport 1001 accept',
      'ip saddr . meta l4proto . th dport vmap @fw_acl_forward_1',
    ]);
    expect(text).toContain('map fw_acl_forward_0 { type ipv4_addr . inet_proto . inet_service : verdict;');
    expect(text).toContain('192.168.1.2 . tcp . 1000 : accept, 192.168.1.3 . tcp . 1001 : drop, 192.168.1.4 . tcp . 1002 : jump fw_acl_reject');
    expect(chainBody(text, 'fw_acl_reject')).toContain('reject');
  });

  it('keeps the first verdict of a repeated key and expands both protocols', () => {
    const second = text.split('\n').find((l) => l.includes('elements') && l.includes('192.168.1.22 . tcp . 1020'))!;
    expect(second).toContain('192.168.1.22 . tcp . 1020 : jump fw_acl_reject');
    expect(second).not.toContain('192.168.1.22 . tcp . 1020 : accept');
    expect(second).toContain('192.168.1.52 . tcp . 53 : drop, 192.168.1.52 . udp . 53 : drop');
  });

  it('short lists stay plain rules', () => {
    const short = ruleset({ firewallAcl: rows.slice(0, 7) });
    expect(short).not.toContain('vmap @fw_acl_forward');
    expect(chainBody(short, 'fw_acl_forward')).toContain('ip saddr 192.168.1.2 meta l4proto tcp th dport 1000 accept');
  });

  it('passes nft -c', async () => {
    const result = await checkRendered({ target: NETWORK_FILES.nftables, content: text, check: 'nft' }, work);
    if (!result.skipped) expect(result.problems).toEqual([]);
  });
});

describe('connection-tracking timeouts', () => {
  it('render the spec §9 values as a checked sysctl file, once the network exists', () => {
    const conntrack = conntrackDomain({ driver: 'linux' });
    const [output] = conntrack.render!(firewallSnapshot({}));
    const file = output!.files[0]!;
    expect(file.target).toBe(CONNTRACK_FILES.linux);
    expect(checkSysctl(file.content)).toEqual([]);
    expect(file.content).toContain('net.netfilter.nf_conntrack_tcp_timeout_established = 1800');
    expect(file.content).toContain('net.netfilter.nf_conntrack_generic_timeout = 300');
    expect(file.content).toContain('net.netfilter.nf_conntrack_udp_timeout = 60');
    expect(file.content).toContain('net.netfilter.nf_conntrack_udp_timeout_stream = 180');
    expect(conntrack.render!({})).toEqual([]);
    expect(conntrackDomain({ driver: 'openwrt' }).render!(firewallSnapshot({}))[0]!.files[0]!.target).toBe(CONNTRACK_FILES.openwrt);
  });
});
