import { ISP_FILE_GROUPS, parsePortRange, QOS_CLASSES, WEEKDAYS, type QosClass } from '@portico/schema';
import type { NetworkPlan, WanPlan, NftChainDeclaration, NftSetDeclaration, RulesetPart } from '../network/network-public.js';
import { WAN_MARK_MASK, cidr4, hex32, identifier, ipv4, mac } from '../network/network-public.js';
import { ispNetworks, type QosConfig } from './qos-config.js';
import { CLASS_MINOR, CONNECTION_QOS_MASK, downloadCode, macUserMark, shapesOnIfb, slotClass, type QosPlan, type QosUser, type QosWindow } from './qos-plan.js';
import { classId, nftClock, nftDays } from './qos-syntax.js';

/**
 * The Smart QoS part of the one nftables ruleset (network-ruleset-parts.ts):
 * - `qos_classify` (forward, mangle priority) puts every packet between LAN and WAN in its
 *   HTB class: `meta priority` for the priority class from the mode's defaults, the port
 *   rules and the domain sets; the packet mark for a limited user from the per-window maps
 *   (routing is decided by then, so the WAN mark is no longer needed); `meta priority` again
 *   for a per-client limit (hotspot) from the run-time maps;
 * - download shaped on IFB devices (qos-plan.ts `ifb`): `qos_upload` also writes each
 *   connection's download code to its connection mark, which the WAN's ingress reads;
 * - download shaped on the LAN side (`lan`): `qos_download` classifies like `qos_upload`, and
 *   `qos_mac_mark` (prerouting, before the network's WAN marks) records a MAC user's number in
 *   the connection mark of its new connections, so the download direction finds it;
 * - `qos_route` (prerouting, after the network restored a connection's WAN) picks the WAN of
 *   a new LAN connection by port route, domain route, ISP network or load-balance weight,
 *   with the WAN marks of network-plan.ts, which the network's `ip rule fwmark` rules route;
 * - `qos_p2p_block` (forward, before the filter chains) drops BitTorrent handshakes, DHT
 *   queries and the well-known ports, in every packet of a connection.
 */

export const DOMAIN_SET_TIMEOUT = '1h';
const QOS_PRIORITY_HOOK = 'type filter hook forward priority mangle; policy accept;';

export function domainClassSet(target: QosClass): string {
  return `qos_dom_${target}`;
}

export function routeSet(wan: WanPlan): string {
  return `qos_route_${wan.index}`;
}

function ispSet(group: string): string {
  return identifier(`qos_isp_${group}`);
}

/**
 * Runtime maps features fill with per-client limits (qos-client-limits.ts): the upload class,
 * and the download class (`lan`) or the download code of the client's connections (`ifb`).
 */
export const CLIENT_MAPS = { up: 'qos_client_up', down: 'qos_client_down', downCode: 'qos_client_down_code' } as const;

function mapName(kind: 'up' | 'down' | 'macup' | 'macdown', window: QosWindow, state: 'in' | 'out'): string {
  return `qos_${kind}_${window.index}_${state}`;
}

/** The match of "inside the window"; empty for a window that always applies. */
function insideMatch(window: QosWindow): string {
  const parts: string[] = [];
  if (window.days.length < WEEKDAYS.length) parts.push(`meta day ${nftDays(window.days)}`);
  if (!(window.start === '00:00' && window.stop === '24:00')) parts.push(`meta hour ${nftClock(window.start)}-${nftClock(window.stop)}`);
  return parts.join(' ');
}

/** Matches that together cover "outside the window". */
function outsideMatches(window: QosWindow): string[] {
  const out: string[] = [];
  const allDays = window.days.length === WEEKDAYS.length;
  if (!allDays) out.push(`meta day != ${nftDays(window.days)}`);
  if (!(window.start === '00:00' && window.stop === '24:00')) {
    out.push(`${allDays ? '' : `meta day ${nftDays(window.days)} `}meta hour != ${nftClock(window.start)}-${nftClock(window.stop)}`);
  }
  return out;
}

function portMatch(proto: 'tcp' | 'udp' | 'all', ports: readonly string[], direction: 'dport' | 'sport'): string {
  const items = ports.map((p) => {
    const range = parsePortRange(p);
    if (!range) throw new Error(`port ${JSON.stringify(p)} cannot be rendered`);
    return range.first === range.last ? String(range.first) : `${range.first}-${range.last}`;
  });
  const l4 = proto === 'all' ? '{ tcp, udp }' : proto;
  return items.length ? `meta l4proto ${l4} th ${direction} { ${items.join(', ')} }` : `meta l4proto ${l4}`;
}

/** Class rules of one direction: the first match wins (each ends with `return`). */
function classRules(config: QosConfig, direction: 'up' | 'down'): string[] {
  const port = direction === 'up' ? 'dport' : 'sport';
  const remote = direction === 'up' ? 'ip daddr' : 'ip saddr';
  const set = (target: QosClass) => `meta priority set ${classId(CLASS_MINOR[target])} return`;
  const rules: string[] = [];
  for (const rule of config.portRules) if (rule.enabled) rules.push(`${portMatch(rule.proto, rule.dport, port)} ${set(rule.target)}`);
  for (const target of QOS_CLASSES) {
    if (config.domainRules.some((r) => r.enabled && r.dest_domain.length && r.target === target)) rules.push(`${remote} @${domainClassSet(target)} ${set(target)}`);
  }
  if (config.base.qosmode === 'smart') {
    // Interactive traffic first (name lookups, pings, time, remote shells and desktops), then
    // the web; BitTorrent's well-known ports are bulk.
    rules.push(
      `${portMatch('all', ['53', '123'], port)} ${set('priority')}`,
      `meta l4proto { icmp, icmpv6 } ${set('priority')}`,
      `${portMatch('tcp', ['22', '3389'], port)} ${set('priority')}`,
      `${portMatch('all', ['80', '443'], port)} ${set('express')}`,
      `${portMatch('all', ['6881-6889'], port)} ${set('bulk')}`,
    );
  }
  return rules;
}

/**
 * The per-window user maps and the rules that consult them. `lan`: the download maps are keyed
 * by the LAN address (or the MAC user's number in the connection mark) and give the packet
 * mark of the class, read on the download packets. `ifb`: they are keyed like the upload ones
 * and give the connection's download code, read on the upload packets (see qos-plan.ts).
 */
function userMaps(plan: QosPlan): { sets: NftSetDeclaration[]; up: string[]; down: string[]; macUsers: string[] } {
  const sets: NftSetDeclaration[] = [];
  const up: string[] = [];
  const down: string[] = [];
  const macUsers: string[] = [];
  const ifb = shapesOnIfb(plan.download);
  if (!ifb) for (const user of plan.users) if (user.macNumber !== undefined) macUsers.push(`${mac(user.key)} : ${hex32(macUserMark(user.macNumber))}`);
  for (const window of plan.windows) {
    const users = plan.users.filter((u) => u.window === window);
    for (const state of ['in', 'out'] as const) {
      const slotOf = (u: QosUser) => (state === 'in' ? u.insideSlot : u.outsideSlot);
      const rate = (u: QosUser, dir: 'up' | 'down') => (state === 'in' ? u[dir].inside : u[dir].outside);
      const element = (u: QosUser, key: string) => `${key} : ${hex32(slotClass(slotOf(u)!).mark)}`;
      const codeElement = (u: QosUser, key: string) => `${key} : ${hex32(downloadCode({ slot: slotOf(u)! }))}`;
      const downKey = (u: QosUser) => (ifb ? mac(u.key) : hex32(macUserMark(u.macNumber!)));
      const downElement = ifb ? codeElement : element;
      const maps = {
        up: users.filter((u) => u.kind === 'ip' && rate(u, 'up') > 0).map((u) => element(u, ipv4(u.key))),
        down: users.filter((u) => u.kind === 'ip' && rate(u, 'down') > 0).map((u) => downElement(u, ipv4(u.key))),
        macup: users.filter((u) => u.kind === 'mac' && rate(u, 'up') > 0).map((u) => element(u, mac(u.key))),
        macdown: users.filter((u) => u.kind === 'mac' && rate(u, 'down') > 0).map((u) => downElement(u, downKey(u))),
      };
      const matches = state === 'in' ? [insideMatch(window)] : outsideMatches(window);
      if (state === 'out' && window.always) continue;
      const types = { up: 'ipv4_addr : mark', down: 'ipv4_addr : mark', macup: 'ether_addr : mark', macdown: ifb ? 'ether_addr : mark' : 'mark : mark' };
      const keys = { up: 'ip saddr', down: ifb ? 'ip saddr' : 'ip daddr', macup: 'ether saddr', macdown: ifb ? 'ether saddr' : `ct mark & ${hex32(CONNECTION_QOS_MASK)}` };
      for (const kind of ['up', 'down', 'macup', 'macdown'] as const) {
        if (maps[kind].length === 0) continue;
        const name = mapName(kind, window, state);
        sets.push({ name, kind: 'map', type: types[kind], elements: maps[kind] });
        const target = kind === 'up' || kind === 'macup' ? up : down;
        // The mark picks the user's class (qos-tc.ts); no priority, so HTB consults its filter.
        // A download code is only a value on its way to the connection mark.
        const then = ifb && target === down ? '' : ' meta priority set none';
        for (const match of matches) target.push(`${match ? `${match} ` : ''}meta mark set ${keys[kind]} map @${name}${then}`);
      }
    }
  }
  return { sets, up, down, macUsers };
}

/**
 * `ifb`: the rules, run on every packet from the LAN after its upload class is known, that
 * write its connection's download code to the connection mark's bits 16-31 (qos-plan.ts): the
 * class (the port and domain rules' matches are the same seen from either end), then a
 * limited user's slot, then a hotspot client's class. The code is put together in the packet
 * mark, which routing no longer needs here, with the WAN bits of the connection mark kept.
 */
function downloadCodeRules(network: NetworkPlan, userRules: readonly string[]): string[] {
  const codes = QOS_CLASSES.map((target) => `${classId(CLASS_MINOR[target])} : ${hex32(downloadCode({ minor: CLASS_MINOR[target] }))}`);
  const wanBits = hex32(WAN_MARK_MASK);
  return [
    `meta mark set meta priority map { ${codes.join(', ')} }`,
    ...userRules,
    `meta mark set ip saddr map @${CLIENT_MAPS.downCode}`,
    ...(network.multiWan ? network.wans.map((w) => `ct mark & ${wanBits} == ${hex32(w.mark)} meta mark set meta mark | ${hex32(w.mark)}`) : []),
    'ct mark set meta mark',
    'meta mark set 0x00000000',
  ];
}

/** `ct mark` and packet mark of a WAN, for a new connection the routing rules send there. */
function toWan(wan: WanPlan): string {
  const mark = hex32(wan.mark);
  return `ct mark set ct mark | ${mark} meta mark set meta mark | ${mark} return`;
}

function routeRules(config: QosConfig, network: NetworkPlan): { rules: string[]; sets: NftSetDeclaration[] } {
  const wanByName = new Map(network.wans.map((w) => [w.name, w]));
  const rules: string[] = [];
  const sets: NftSetDeclaration[] = [];
  for (const rule of config.portRules) {
    const wan = rule.enabled && rule.userule ? wanByName.get(rule.interface) : undefined;
    if (wan) rules.push(`${portMatch(rule.proto, rule.dport, 'dport')} ${toWan(wan)}`);
  }
  for (const wan of network.wans) {
    if (config.domainRules.some((r) => r.enabled && r.dest_domain.length && r.userule && r.interface === wan.name)) rules.push(`ip daddr @${routeSet(wan)} ${toWan(wan)}`);
  }
  if (config.base.balance) {
    const ispOf = new Map(config.loadBalance.map((row) => [row.interface, row.isp]));
    for (const wan of network.wans) {
      const group = ispOf.get(wan.name);
      const networks = group ? ispNetworks(config, group) : [];
      if (!group || !(ISP_FILE_GROUPS as readonly string[]).includes(group) || networks.length === 0) continue;
      sets.push({ name: ispSet(group), type: 'ipv4_addr', flags: ['interval'], extra: ['auto-merge'], elements: networks.map(cidr4) });
      rules.push(`ip daddr @${ispSet(group)} ${toWan(wan)}`);
    }
    // Weighted spread of what is left: a random number per new connection picks the WAN.
    const weightOf = new Map(config.loadBalance.map((row) => [row.interface, row.weight]));
    const members = network.wans.map((wan) => ({ wan, weight: weightOf.get(wan.name) ?? 1 }));
    const total = members.reduce((sum, m) => sum + m.weight, 0);
    rules.push(`meta mark set numgen random mod ${total}`);
    let first = 0;
    for (const [position, member] of members.entries()) {
      const last = first + member.weight - 1;
      const match = position === members.length - 1 ? '' : `meta mark ${first === last ? first : `${first}-${last}`} `;
      rules.push(`${match}${toWan(member.wan)}`);
      first = last + 1;
    }
  }
  return { rules, sets };
}

export function renderQosPart(config: QosConfig, plan: QosPlan, network: NetworkPlan): RulesetPart | null {
  const sets: NftSetDeclaration[] = [];
  const chains: NftChainDeclaration[] = [];

  // Sets fed by DNS answers (domain rules): declared whatever the configuration, so their
  // declaration never changes and a reload keeps what the resolver added.
  const timeout = { type: 'ipv4_addr', flags: ['timeout'], extra: [`timeout ${DOMAIN_SET_TIMEOUT}`], runtime: true };
  for (const target of QOS_CLASSES) sets.push({ name: domainClassSet(target), ...timeout });
  for (const wan of network.wans) sets.push({ name: routeSet(wan), ...timeout });
  for (const name of [CLIENT_MAPS.up, CLIENT_MAPS.down]) sets.push({ name, kind: 'map', type: 'ipv4_addr : classid', runtime: true });
  sets.push({ name: CLIENT_MAPS.downCode, kind: 'map', type: 'ipv4_addr : mark', runtime: true });

  if (plan.enabled) {
    const maps = userMaps(plan);
    sets.push(...maps.sets);
    if (maps.macUsers.length) {
      sets.push({ name: 'qos_mac_user', kind: 'map', type: 'ether_addr : mark', elements: maps.macUsers });
      chains.push({
        name: 'qos_mac_mark',
        base: 'type filter hook prerouting priority mangle - 20; policy accept;',
        rules: ['iifname @lan_ifaces ct state new ct mark set ether saddr map @qos_mac_user'],
      });
    }
    const ifb = shapesOnIfb(plan.download);
    const upload = [`meta priority set ${classId(CLASS_MINOR.normal)}`, 'jump qos_up_class'];
    if (ifb) upload.push(...downloadCodeRules(network, maps.down));
    upload.push(...maps.up, `meta priority set ip saddr map @${CLIENT_MAPS.up}`);
    const classify = ['iifname @lan_ifaces oifname @wan_ifaces jump qos_upload'];
    chains.push({ name: 'qos_up_class', rules: classRules(config, 'up') });
    if (!ifb) chains.push({ name: 'qos_down_class', rules: classRules(config, 'down') });
    chains.push({ name: 'qos_upload', rules: upload });
    if (!ifb) {
      chains.push({
        name: 'qos_download',
        rules: [`meta priority set ${classId(CLASS_MINOR.normal)}`, 'jump qos_down_class', ...maps.down, `meta priority set ip daddr map @${CLIENT_MAPS.down}`],
      });
      classify.push('iifname @wan_ifaces oifname @lan_ifaces jump qos_download');
    }
    chains.push({ name: 'qos_classify', base: QOS_PRIORITY_HOOK, rules: classify });
  }

  if (network.multiWan) {
    const route = routeRules(config, network);
    sets.push(...route.sets);
    if (route.rules.length) {
      const mask = hex32(WAN_MARK_MASK);
      chains.push({
        name: 'qos_route',
        // After the network's chain restored the WAN of known connections (priority mangle).
        base: 'type filter hook prerouting priority mangle + 10; policy accept;',
        rules: ['iifname != @lan_ifaces return', 'ct state != new return', `ct mark & ${mask} != 0x00000000 return`, ...route.rules],
      });
    }
  }

  if (config.base.p2pblock) {
    // A chain of its own on the forward hook: the base forward chain accepts established
    // connections before its extension chain, and a handshake travels in an established one.
    chains.push({
      name: 'qos_p2p_block',
      base: 'type filter hook forward priority filter - 5; policy accept;',
      rules: [
        // The BitTorrent handshake: 0x13 "BitTorrent protocol"; DHT queries start "d1:ad2:id20:".
        'meta l4proto tcp @ih,0,64 0x13426974546f7272 @ih,64,64 0x656e742070726f74 drop',
        'meta l4proto udp @ih,0,96 0x64313a6164323a696432303a drop',
        'meta l4proto { tcp, udp } th dport 6881-6889 drop',
      ],
    });
  }
  return { name: 'Smart QoS', filter: { sets, chains } };
}

/** dnsmasq `nftset=` lines: DNS answers for the domain rules' names fill their sets. */
export function renderQosDnsmasq(config: QosConfig, network: NetworkPlan): string[] {
  const wanByName = new Map(network.wans.map((w) => [w.name, w]));
  const lines: string[] = [];
  for (const rule of config.domainRules) {
    if (!rule.enabled || rule.dest_domain.length === 0) continue;
    const targets = [`4#inet#portico#${domainClassSet(rule.target)}`];
    const wan = rule.userule ? wanByName.get(rule.interface) : undefined;
    if (wan && network.multiWan) targets.push(`4#inet#portico#${routeSet(wan)}`);
    lines.push(`nftset=/${rule.dest_domain.map(domainToken).join('/')}/${targets.join(',')}`);
  }
  return lines;
}

function domainToken(value: string): string {
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(value) || value.includes('..')) throw new Error(`domain ${JSON.stringify(value)} cannot be rendered`);
  return value.toLowerCase();
}
