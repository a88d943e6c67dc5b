import type { NetworkPlan } from './network-plan.js';
import { WAN_MARK_MASK } from './network-plan.js';
import { cidr4, hex32, integer, ipv4, mac, nftString } from './network-syntax.js';
import { collectTable, declareSets, defineSets, flushSets, type RulesetPart } from './network-ruleset-parts.js';

/**
 * The network part of the nftables ruleset: one `inet portico` filter table and one
 * `ip portico_nat` table, loaded atomically with `nft -f`.
 *
 * Each table is declared, flushed and defined again in the same file, so a reload replaces its
 * rules in one transaction and the base chains never stand open. `flush table` keeps set
 * elements, which lets sets filled at run time (hotspot clients, added later) survive a reload;
 * the sets this file fills are flushed by name before their elements are written.
 *
 * Other features (firewall, Smart QoS, hotspot) come in as ruleset parts
 * (network-ruleset-parts.ts): their own sets and chains, and rules in the extension chains the
 * base chains jump to: `input_rules`, `forward_rules`, `wan_to_device`, `lan_to_device`
 * (filter) and `prerouting_rules`, `postrouting_rules` (nat).
 */

const TAB = '\t';

/** Sets this file owns and fills. */
const FILTER_SETS: ReadonlyArray<[string, string]> = [
  ['lan_ifaces', 'ifname'],
  ['wan_ifaces', 'ifname'],
  ['vpn_ifaces', 'ifname'],
  ['arp_bound', 'ipv4_addr'],
  ['arp_pairs', 'ether_addr . ipv4_addr'],
];

/** The body of a set after its type: nft needs the `;` whether or not elements follow. */
function elements(values: readonly string[]): string {
  return values.length ? `; elements = { ${values.join(', ')} }` : ';';
}

function anonymous(values: readonly string[]): string {
  return values.length === 1 ? values[0]! : `{ ${values.join(', ')} }`;
}

export function renderNftables(
  plan: NetworkPlan,
  options: { adminPorts: readonly number[]; arpAuthNoticePort: number },
  parts: readonly RulesetPart[] = [],
): string {
  const filterParts = collectTable(parts, (part) => part.filter);
  const natParts = collectTable(parts, (part) => part.nat);
  const lanDevices = [...new Set(plan.lanSides.map((s) => s.device).concat(plan.lans.map((l) => l.l3)))];
  const wanDevices = plan.wans.map((w) => w.l3);
  const binds = plan.config.arpBinds;
  const auth = plan.config.arpAuth;
  const noticePort = integer(options.arpAuthNoticePort, 1, 65_535, 'notice port');
  const adminPorts = options.adminPorts.map((p) => integer(p, 1, 65_535, 'admin port'));
  const redirecting = auth.enabled && auth.auth_action === 'redirect';

  const out: string[] = [
    '# Portico network ruleset. Generated; changes are overwritten.',
    'table inet portico {}',
    'flush table inet portico',
    'table inet portico {',
    ...FILTER_SETS.map(([name, type]) => `${TAB}set ${name} { type ${type}; }`),
    ...declareSets(filterParts.sets),
    '}',
    ...FILTER_SETS.map(([name]) => `flush set inet portico ${name}`),
    ...flushSets('inet', 'portico', filterParts.sets),
    'table inet portico {',
  ];
  const sets: Record<string, string[]> = {
    lan_ifaces: lanDevices.map(nftString),
    wan_ifaces: wanDevices.map(nftString),
    vpn_ifaces: plan.vpnDevices.map(nftString),
    arp_bound: [...new Set(binds.map((b) => ipv4(b.ip)))],
    arp_pairs: binds.map((b) => `${mac(b.mac)} . ${ipv4(b.ip)}`),
  };
  for (const [name, type] of FILTER_SETS) out.push(`${TAB}set ${name} { type ${type}${elements(sets[name]!)} }`);
  out.push(...defineSets(filterParts.sets));

  const chain = (name: string, rules: readonly string[], base?: string) => {
    out.push('', `${TAB}chain ${name} {`);
    if (base) out.push(`${TAB}${TAB}${base}`);
    for (const rule of rules) out.push(`${TAB}${TAB}${rule}`);
    out.push(`${TAB}}`);
  };

  // ARP binding: a bound address must come with its MAC. ARP authentication (IPv4): only
  // bound addresses pass; towards the device an unbound client still gets DHCP and, in
  // redirect mode, DNS and the notice page its web requests are sent to.
  const spoof = 'ip saddr @arp_bound ether saddr . ip saddr != @arp_pairs drop';
  const guardInput = [spoof];
  const guardForward = [spoof];
  if (auth.enabled) {
    guardInput.push('ip saddr @arp_bound return', 'udp sport 68 udp dport 67 return');
    if (redirecting) guardInput.push('meta l4proto { tcp, udp } th dport 53 return', `tcp dport ${noticePort} return`);
    guardInput.push('meta nfproto ipv4 drop');
    guardForward.push('ip saddr != @arp_bound drop');
  }
  chain('arp_guard_input', guardInput);
  chain('arp_guard_forward', guardForward);

  const admin = adminPorts.length ? [`tcp dport ${anonymous(adminPorts)} accept`] : [];
  const hooked = (hook: Parameters<typeof filterParts.hooks.get>[0]) => filterParts.hooks.get(hook) ?? [];
  chain('lan_to_device', [
    ...hooked('lan_to_device'),
    'udp dport 67 accept',
    'udp dport 547 accept',
    'meta l4proto { tcp, udp } th dport 53 accept',
    ...admin,
    ...(redirecting ? [`tcp dport ${noticePort} accept`] : []),
    'icmp type echo-request accept',
    'icmpv6 type echo-request accept',
    ...(plan.iptv?.type === 'igmp' ? ['ip protocol igmp accept'] : []),
  ]);
  chain('wan_to_device', [
    // DHCPv6 answers come from the server's link-local address, unrelated to the multicast request.
    'ip6 saddr fe80::/10 udp sport 547 udp dport 546 accept',
    ...(plan.iptv?.type === 'igmp' ? [`iifname ${nftString(plan.iptv.upstream)} ip protocol igmp accept`] : []),
    ...hooked('wan_to_device'),
  ]);
  chain('input_rules', hooked('input_rules'));
  chain('forward_rules', hooked('forward_rules'));
  for (const part of filterParts.chains) chain(part.name, part.rules, part.base);

  chain(
    'input',
    [
      'iifname @lan_ifaces jump arp_guard_input',
      'ct state established,related accept',
      'ct state invalid drop',
      'iif "lo" accept',
      'icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, nd-router-advert, packet-too-big, destination-unreachable, time-exceeded, parameter-problem } accept',
      'jump input_rules',
      'iifname @lan_ifaces jump lan_to_device',
      'iifname @wan_ifaces jump wan_to_device',
    ],
    'type filter hook input priority filter; policy drop;',
  );

  const forward = [
    'iifname @lan_ifaces jump arp_guard_forward',
    'ct state established,related accept',
    'ct state invalid drop',
    'icmpv6 type { packet-too-big, destination-unreachable, time-exceeded, parameter-problem } accept',
    'jump forward_rules',
    'iifname @lan_ifaces oifname @wan_ifaces accept',
    'iifname @lan_ifaces oifname @vpn_ifaces accept',
  ];
  if (plan.iptv?.type === 'igmp' && plan.iptv.downstream) {
    forward.push(`iifname ${nftString(plan.iptv.upstream)} oifname ${nftString(plan.iptv.downstream)} ip daddr 224.0.0.0/4 accept`);
  }
  chain('forward', forward, 'type filter hook forward priority filter; policy drop;');
  chain('output', [], 'type filter hook output priority filter; policy accept;');
  if (plan.pptpClients) {
    // A PPTP tunnel's GRE packets carry call IDs that only conntrack's PPTP helper, watching the
    // control connection, ties to it: without it the server's GRE is new traffic to the input drop.
    out.push('', `${TAB}ct helper pptp_client { type "pptp" protocol tcp; l3proto ip; }`);
    chain('vpn_client_helpers', ['tcp dport 1723 ct helper set "pptp_client"'], 'type filter hook output priority filter; policy accept;');
  }

  if (plan.multiWan) {
    // A connection keeps the WAN it started on: the WAN is recorded in the connection mark
    // (bits 8-15) when it enters or first leaves through a WAN, and restored to the packet
    // mark, which selects the WAN's routing table.
    const mask = hex32(WAN_MARK_MASK);
    const keep = hex32(~WAN_MARK_MASK >>> 0);
    const enter = plan.wans.map((w) => `iifname ${nftString(w.l3)} ct state new ct mark set ct mark & ${keep} | ${hex32(w.mark)}`);
    const leave = plan.wans.map((w) => `oifname ${nftString(w.l3)} ct mark & ${mask} == 0x00000000 ct mark set ct mark & ${keep} | ${hex32(w.mark)}`);
    const restore = `ct mark & ${mask} != 0x00000000 meta mark set ct mark & ${mask}`;
    chain('wan_mark_prerouting', [...enter, restore], 'type filter hook prerouting priority mangle; policy accept;');
    chain('wan_mark_output', [restore], 'type route hook output priority mangle; policy accept;');
    chain('wan_mark_postrouting', leave, 'type filter hook postrouting priority mangle; policy accept;');
  }
  out.push('}');

  // NAT: masquerade what leaves through a WAN or a VPN client tunnel, except traffic to IPsec
  // peer networks, which must keep its addresses to match the IPsec policy.
  out.push(
    'table ip portico_nat {}',
    'flush table ip portico_nat',
    'table ip portico_nat {',
    `${TAB}set arp_bound { type ipv4_addr; }`,
    ...declareSets(natParts.sets),
    '}',
    'flush set ip portico_nat arp_bound',
    ...flushSets('ip', 'portico_nat', natParts.sets),
    'table ip portico_nat {',
    `${TAB}set arp_bound { type ipv4_addr${elements(redirecting ? sets.arp_bound! : [])} }`,
    ...defineSets(natParts.sets),
  );
  const nat = (name: string, rules: readonly string[], base?: string) => chain(name, rules, base);
  nat('prerouting_rules', natParts.hooks.get('prerouting_rules') ?? []);
  nat('postrouting_rules', natParts.hooks.get('postrouting_rules') ?? []);
  for (const part of natParts.chains) nat(part.name, part.rules, part.base);
  const prerouting = ['jump prerouting_rules'];
  if (redirecting && lanDevices.length) {
    prerouting.unshift(`iifname ${anonymous(lanDevices.map(nftString))} ip saddr != @arp_bound tcp dport 80 redirect to :${noticePort}`);
  }
  nat('prerouting', prerouting, 'type nat hook prerouting priority dstnat; policy accept;');
  const postrouting = ['jump postrouting_rules'];
  if (plan.ipsecPeers.length) postrouting.push(`ip daddr ${anonymous(plan.ipsecPeers.map(cidr4))} return`);
  const egress = [...wanDevices, ...plan.vpnDevices];
  if (egress.length) postrouting.push(`oifname ${anonymous(egress.map(nftString))} masquerade`);
  nat('postrouting', postrouting, 'type nat hook postrouting priority srcnat; policy accept;');
  out.push('}');
  return `${out.join('\n')}\n`;
}
