import { mappingPorts, protocolsOf, SHARE_HOST_TTLS, type FirewallAcl, type FirewallPortMapping } from '@portico/schema';
import type { NetworkPlan, NftChainDeclaration, NftSetDeclaration, RulesetPart } from '../network/network-public.js';
import { integer, ipv4, nftString } from '../network/network-public.js';
import type { FirewallConfig } from './firewall-config.js';
import { addressSelector, anonymousSet, portSpec } from './firewall-syntax.js';

/**
 * The firewall's nftables rules, built once and placed by the driver: into the one network
 * ruleset on `linux` (a RulesetPart), into fw4 include files on `openwrt`.
 *
 * Scale comes from sets and maps: single-port mappings are one DNAT map lookup
 * (`iifname . l4proto . dport -> address . port`) and host mappings two address maps, so
 * thousands of mappings cost one rule each way. Filter rules keep list order (first match
 * wins): runs of rules matching exact values become verdict-map lookups, the others stay
 * rules. Only ranges, source-restricted mappings and such filter rules are written as rules.
 */

export interface FirewallRules {
  filterSets: NftSetDeclaration[];
  filterChains: NftChainDeclaration[];
  /** Rules for new forwarded connections, in order. */
  forward: string[];
  /** Rules for new connections to the gateway. */
  input: string[];
  natSets: NftSetDeclaration[];
  natChains: NftChainDeclaration[];
  dstnat: string[];
  srcnat: string[];
}

/** The sets naming LAN and WAN devices: the network ruleset's own, or the driver's. */
export interface DeviceSets {
  lan: string;
  wan: string;
}

export const LINUX_DEVICE_SETS: DeviceSets = { lan: '@lan_ifaces', wan: '@wan_ifaces' };

/** A WAN (or every WAN, for an empty name) as its devices; none for a WAN that is not planned. */
function wanDevices(plan: NetworkPlan, wan: string): string[] {
  const wans = wan === '' ? plan.wans : plan.wans.filter((w) => w.name === wan);
  return wans.map((w) => w.l3);
}

function deviceOf(plan: NetworkPlan, name: string): string | undefined {
  return plan.deviceOf.get(name);
}

function lanDevices(plan: NetworkPlan): string[] {
  return [...new Set([...plan.lanSides.map((s) => s.device), ...plan.lans.map((l) => l.l3)])];
}

function iifMatch(devices: readonly string[], keyword: 'iifname' | 'oifname'): string {
  return `${keyword} ${anonymousSet(devices.map(nftString))}`;
}

const port = (n: number) => integer(n, 1, 65_535, 'port');

/** A mapping fits the DNAT map when it is one port with no source restriction. */
function mapped(row: FirewallPortMapping): boolean {
  const ports = mappingPorts(row);
  return row.src === '' && ports.first === ports.last;
}

function portMappings(config: FirewallConfig, plan: NetworkPlan, out: FirewallRules): boolean {
  const elements: string[] = [];
  const keys = new Set<string>();
  const rules: string[] = [];
  for (const row of config.portMappings) {
    if (!row.enabled) continue;
    const devices = wanDevices(plan, row.wan);
    if (!devices.length) continue;
    const target = ipv4(row.intip);
    const internal = port(row.intport === 0 ? row.extport : row.intport);
    if (mapped(row)) {
      for (const dev of devices) {
        for (const proto of protocolsOf(row.proto)) {
          const key = `${nftString(dev)} . ${proto} . ${port(row.extport)}`;
          // Overlaps are refused on write; a stale one must still never break the load.
          if (keys.has(key)) continue;
          keys.add(key);
          elements.push(`${key} : ${target} . ${internal}`);
        }
      }
      continue;
    }
    // Source-restricted mappings stay rules: an interval map of them loads slower than the
    // rules it would replace (measured with the firewall-apply bench).
    const ports = mappingPorts(row);
    const range = ports.first !== ports.last;
    const dport = range ? `${port(ports.first)}-${port(ports.last)}` : port(ports.first);
    const source = row.src === '' ? '' : ` ip saddr ${addressSelector(row.src)}`;
    // A range keeps its port numbers; one port may move to another.
    const to = range ? target : `${target}:${internal}`;
    rules.push(`${iifMatch(devices, 'iifname')}${source} meta l4proto ${anonymousSet(protocolsOf(row.proto))} th dport ${dport} dnat ip to ${to}`);
  }
  if (elements.length) {
    out.natSets.push({ name: 'fw_dnat', kind: 'map', type: 'ifname . inet_proto . inet_service : ipv4_addr . inet_service', elements });
    out.dstnat.push('dnat ip to iifname . meta l4proto . th dport map @fw_dnat');
  }
  out.dstnat.push(...rules);
  return elements.length > 0 || rules.length > 0;
}

function hostMappings(config: FirewallConfig, plan: NetworkPlan, out: FirewallRules): boolean {
  const inbound: string[] = [];
  const outbound: string[] = [];
  const seenIn = new Set<string>();
  const seenOut = new Set<string>();
  for (const row of config.hostMappings) {
    if (!row.enabled) continue;
    for (const dev of wanDevices(plan, row.wan)) {
      const inKey = `${nftString(dev)} . ${ipv4(row.public)}`;
      const outKey = `${nftString(dev)} . ${ipv4(row.private)}`;
      if (!seenIn.has(inKey)) {
        seenIn.add(inKey);
        inbound.push(`${inKey} : ${ipv4(row.private)}`);
      }
      if (!seenOut.has(outKey)) {
        seenOut.add(outKey);
        outbound.push(`${outKey} : ${ipv4(row.public)}`);
      }
    }
  }
  if (!inbound.length) return false;
  out.natSets.push(
    { name: 'fw_host_in', kind: 'map', type: 'ifname . ipv4_addr : ipv4_addr', elements: inbound },
    { name: 'fw_host_out', kind: 'map', type: 'ifname . ipv4_addr : ipv4_addr', elements: outbound },
  );
  out.dstnat.push('dnat ip to iifname . ip daddr map @fw_host_in');
  out.srcnat.push('snat ip to oifname . ip saddr map @fw_host_out');
  return true;
}

function dmz(config: FirewallConfig, plan: NetworkPlan, out: FirewallRules): boolean {
  const rules: string[] = [];
  for (const row of config.dmz) {
    if (!row.enabled) continue;
    const devices = wanDevices(plan, row.wan);
    if (devices.length) rules.push(`${iifMatch(devices, 'iifname')} fib daddr type local dnat ip to ${ipv4(row.host)}`);
  }
  if (!rules.length) return false;
  // The gateway's own DHCP client must keep its leases on a DMZ WAN.
  out.dstnat.push('udp dport 68 return', ...rules);
  return true;
}

function natRules(config: FirewallConfig, plan: NetworkPlan, out: FirewallRules): void {
  for (const row of config.nat) {
    if (!row.enabled) continue;
    const match: string[] = [];
    if (row.outif !== '') {
      const dev = deviceOf(plan, row.outif);
      if (!dev) continue;
      match.push(`oifname ${nftString(dev)}`);
    }
    if (row.src !== '') match.push(`ip saddr ${addressSelector(row.src)}`);
    if (row.dst !== '') match.push(`ip daddr ${addressSelector(row.dst)}`);
    if (!match.length) match.push('meta nfproto ipv4');
    const verdict = row.target === 'snat' ? `snat ip to ${ipv4(row.toaddr)}` : row.target === 'masquerade' ? 'masquerade' : 'accept';
    out.srcnat.push(`${match.join(' ')} ${verdict}`);
  }
}

const FILTER_VERDICTS: Record<FirewallAcl['target'], string> = { drop: 'drop', reject: 'reject', accept: 'accept' };
/** A verdict map cannot hold `reject` (a statement, not a verdict): it jumps here instead. */
const REJECT_CHAIN = 'fw_acl_reject';
/** Runs shorter than this stay plain rules: easier to read, and no faster as a map. */
export const FILTER_MAP_MIN_RUN = 8;

function aclRule(row: FirewallAcl, plan: NetworkPlan): string | null {
  const match: string[] = [];
  if (row.iface !== '') {
    const dev = deviceOf(plan, row.iface);
    if (!dev) return null;
    match.push(`iifname ${nftString(dev)}`);
  }
  if (row.src !== '') match.push(`ip saddr ${addressSelector(row.src)}`);
  if (row.dst !== '') match.push(`ip daddr ${addressSelector(row.dst)}`);
  const protos = protocolsOf(row.proto);
  if (row.proto === 'icmp') match.push('ip protocol icmp');
  else if (protos.length) {
    match.push(`meta l4proto ${anonymousSet(protos)}`);
    if (row.sport !== '') match.push(`th sport ${portSpec(row.sport)}`);
    if (row.dport !== '') match.push(`th dport ${portSpec(row.dport)}`);
  }
  // Rules act on IPv4 only, like every firewall rule here (an `ip` match implies it already).
  if (!match.some((m) => m.startsWith('ip '))) match.unshift('meta nfproto ipv4');
  return `${match.join(' ')} ${FILTER_VERDICTS[row.target]}`;
}

/** The key dimensions of a filter rule whose every match is one exact value. */
const DIMENSIONS = [
  { field: 'iface', expr: 'iifname', type: 'ifname' },
  { field: 'src', expr: 'ip saddr', type: 'ipv4_addr' },
  { field: 'dst', expr: 'ip daddr', type: 'ipv4_addr' },
  { field: 'proto', expr: 'meta l4proto', type: 'inet_proto' },
  { field: 'sport', expr: 'th sport', type: 'inet_service' },
  { field: 'dport', expr: 'th dport', type: 'inet_service' },
] as const;

interface ExactRule {
  /** Which dimensions the rule matches on, e.g. `src,proto,dport`. */
  shape: string;
  /** One key per protocol (TCP and UDP give two). */
  keys: string[];
  verdict: string;
}

/**
 * A filter rule as verdict-map keys, or null when it needs a rule of its own (ranges,
 * networks, ICMP, "all protocols" with ports). Exact keys of one shape never overlap, so a
 * run of such rules can be one map lookup without changing which rule decides.
 */
function exactRule(row: FirewallAcl, plan: NetworkPlan): ExactRule | null {
  // The schema accepted these as selectors and ports; a separator is what makes them wider.
  const single = (text: string) => !text.includes('-') && !text.includes('/');
  const onePort = (text: string) => !text.includes('-');
  if (row.proto === 'icmp' || !single(row.src) || !single(row.dst) || !onePort(row.sport) || !onePort(row.dport)) return null;
  const protos = protocolsOf(row.proto);
  const dev = row.iface === '' ? '' : deviceOf(plan, row.iface);
  if (dev === undefined) return null;
  const values: Record<(typeof DIMENSIONS)[number]['field'], string> = {
    iface: dev === '' ? '' : nftString(dev),
    src: row.src === '' ? '' : ipv4(row.src),
    dst: row.dst === '' ? '' : ipv4(row.dst),
    proto: protos.length ? '@' : '',
    sport: row.sport === '' ? '' : port(Number(row.sport)),
    dport: row.dport === '' ? '' : port(Number(row.dport)),
  };
  const used = DIMENSIONS.filter((d) => values[d.field] !== '');
  // A map needs a key; rules matching nothing but the protocol family stay rules.
  if (used.length === 0) return null;
  const verdict = row.target === 'reject' ? `jump ${REJECT_CHAIN}` : FILTER_VERDICTS[row.target];
  const keysFor = (proto: string) => used.map((d) => (d.field === 'proto' ? proto : values[d.field])).join(' . ');
  const keys = protos.length ? protos.map(keysFor) : [keysFor('')];
  return { shape: used.map((d) => d.field).join(','), keys, verdict };
}

function aclChain(name: string, rows: readonly FirewallAcl[], plan: NetworkPlan, out: FirewallRules): string[] {
  const rules: string[] = [];
  let run: ExactRule[] = [];
  let runRows: FirewallAcl[] = [];
  const flush = () => {
    if (run.length >= FILTER_MAP_MIN_RUN) {
      const mapName = `${name}_${out.filterSets.filter((s) => s.name.startsWith(`${name}_`)).length}`;
      const dims = DIMENSIONS.filter((d) => run[0]!.shape.split(',').includes(d.field));
      const elements: string[] = [];
      const seen = new Set<string>();
      for (const rule of run) {
        for (const key of rule.keys) {
          // The first rule with a key decides, as it would in list order.
          if (seen.has(key)) continue;
          seen.add(key);
          elements.push(`${key} : ${rule.verdict}`);
        }
      }
      out.filterSets.push({ name: mapName, kind: 'map', type: `${dims.map((d) => d.type).join(' . ')} : verdict`, elements });
      const family = dims.some((d) => d.expr.startsWith('ip ')) ? '' : 'meta nfproto ipv4 ';
      rules.push(`${family}${dims.map((d) => d.expr).join(' . ')} vmap @${mapName}`);
    } else rules.push(...runRows.flatMap((row) => aclRule(row, plan) ?? []));
    run = [];
    runRows = [];
  };
  for (const row of rows) {
    const exact = exactRule(row, plan);
    if (!exact || (run.length && run[0]!.shape !== exact.shape)) flush();
    if (exact) {
      run.push(exact);
      runRows.push(row);
      continue;
    }
    const rule = aclRule(row, plan);
    if (rule) rules.push(rule);
  }
  flush();
  return rules;
}

function acl(config: FirewallConfig, plan: NetworkPlan, out: FirewallRules): void {
  const enabled = config.acl.filter((row) => row.enabled);
  const forward = aclChain('fw_acl_forward', enabled.filter((row) => row.direction !== 'input'), plan, out);
  const input = aclChain('fw_acl_input', enabled.filter((row) => row.direction === 'input'), plan, out);
  if ([...forward, ...input].some((rule) => rule.includes(`jump ${REJECT_CHAIN}`)) || out.filterSets.some((s) => s.elements?.some((e) => e.endsWith(`jump ${REJECT_CHAIN}`)))) {
    out.filterChains.push({ name: REJECT_CHAIN, rules: ['reject'] });
  }
  if (forward.length) {
    out.filterChains.push({ name: 'fw_acl_forward', rules: forward });
    out.forward.push('jump fw_acl_forward');
  }
  if (input.length) {
    out.filterChains.push({ name: 'fw_acl_input', rules: input });
    out.input.push('jump fw_acl_input');
  }
}

interface Limits {
  perip: number;
  tcp: number;
  udp: number;
}

function limitRules(tag: string, limits: Limits, out: FirewallRules): string[] {
  const rules: string[] = [];
  const meter = (kind: string) => {
    const name = `fw_cl_${tag}_${kind}`;
    out.filterSets.push({ name, type: 'ipv4_addr', flags: ['dynamic'], extra: ['size 65535'], runtime: true });
    return name;
  };
  const cap = (n: number) => integer(n, 1, 1_000_000, 'connection limit');
  if (limits.perip > 0) rules.push(`add @${meter('all')} { ip saddr ct count over ${cap(limits.perip)} } reject`);
  if (limits.tcp > 0) rules.push(`meta l4proto tcp add @${meter('tcp')} { ip saddr ct count over ${cap(limits.tcp)} } reject with tcp reset`);
  if (limits.udp > 0) rules.push(`meta l4proto udp add @${meter('udp')} { ip saddr ct count over ${cap(limits.udp)} } reject`);
  return rules;
}

function connectionLimits(config: FirewallConfig, devices: DeviceSets, out: FirewallRules): void {
  const dispatch: string[] = [];
  const exempt = config.sessionLimit.exempt.map(addressSelector);
  if (exempt.length) {
    out.filterSets.push({ name: 'fw_cl_exempt', type: 'ipv4_addr', flags: ['interval'], extra: ['auto-merge'], elements: exempt });
    dispatch.push('ip saddr @fw_cl_exempt return');
  }
  config.connLimits.forEach((row, index) => {
    if (!row.enabled) return;
    const tag = `r${index}`;
    const rules = limitRules(tag, row, out);
    // A row with every limit at 0 exempts its addresses from the default limits.
    if (!rules.length) {
      dispatch.push(`ip saddr ${addressSelector(row.ip)} return`);
      return;
    }
    out.filterChains.push({ name: `fw_cl_${tag}`, rules });
    dispatch.push(`ip saddr ${addressSelector(row.ip)} goto fw_cl_${tag}`);
  });
  if (config.sessionLimit.enabled) dispatch.push(...limitRules('default', config.sessionLimit, out));
  if (!dispatch.some((rule) => !rule.endsWith(' return'))) return;
  out.filterChains.push({ name: 'fw_connlimit', rules: dispatch });
  out.forward.push(`iifname ${devices.lan} ct state new jump fw_connlimit`);
}

function shareBlock(config: FirewallConfig, plan: NetworkPlan, devices: DeviceSets, out: FirewallRules): void {
  const share = config.shareBlock;
  if (!share.enabled) return;
  const ifaces = share.ifname.length ? share.ifname.flatMap((name) => deviceOf(plan, name) ?? []) : lanDevices(plan);
  if (!ifaces.length) return;
  out.filterSets.push(
    { name: 'fw_share_ifaces', type: 'ifname', elements: [...new Set(ifaces)].map(nftString) },
    { name: 'fw_share_white', type: 'ipv4_addr', flags: ['interval'], extra: ['auto-merge'], elements: share.whitelist.map(addressSelector) },
    { name: 'fw_share_black', type: 'ipv4_addr', flags: ['interval'], extra: ['auto-merge'], elements: share.blacklist.map(addressSelector) },
  );
  const ttls = SHARE_HOST_TTLS.map((t) => integer(t, 1, 255, 'ttl'));
  out.filterChains.push({
    name: 'fw_share',
    rules: ['ip saddr @fw_share_white return', 'ip saddr @fw_share_black drop', `ip ttl != { ${ttls.join(', ')} } drop`],
  });
  out.forward.push(`iifname @fw_share_ifaces oifname ${devices.wan} jump fw_share`);
}

function lanForward(config: FirewallConfig, plan: NetworkPlan, out: FirewallRules): void {
  const lf = config.lanForward;
  if (!lf.enabled) return;
  const rejected = new Set(lf.rejlan.flatMap((name) => deviceOf(plan, name) ?? []));
  const allowed = (lf.lan.length ? lf.lan.flatMap((name) => deviceOf(plan, name) ?? []) : lanDevices(plan)).filter((dev) => !rejected.has(dev));
  if (allowed.length < 2) return;
  out.filterSets.push({ name: 'fw_lan_forward', type: 'ifname', elements: [...new Set(allowed)].map(nftString) });
  out.forward.push('iifname @fw_lan_forward oifname @fw_lan_forward accept');
}

export function buildFirewallRules(config: FirewallConfig, plan: NetworkPlan, devices: DeviceSets = LINUX_DEVICE_SETS): FirewallRules {
  const out: FirewallRules = { filterSets: [], filterChains: [], forward: [], input: [], natSets: [], natChains: [], dstnat: [], srcnat: [] };
  // Forward order: limits and share-net block first (they only refuse), then the filter rules
  // in list order, then what is let through: LAN forward and the mapped connections.
  connectionLimits(config, devices, out);
  shareBlock(config, plan, devices, out);
  acl(config, plan, out);
  lanForward(config, plan, out);
  const diverted = [portMappings(config, plan, out), hostMappings(config, plan, out), dmz(config, plan, out)].some(Boolean);
  if (diverted) out.forward.push('ct status dnat accept');
  natRules(config, plan, out);
  if (out.dstnat.length) out.natChains.push({ name: 'fw_dstnat', rules: out.dstnat });
  if (out.srcnat.length) out.natChains.push({ name: 'fw_srcnat', rules: out.srcnat });
  return out;
}

/** The linux driver's part of the one network ruleset. */
export function firewallRulesetPart(config: FirewallConfig, plan: NetworkPlan): RulesetPart | null {
  const rules = buildFirewallRules(config, plan);
  const empty = !rules.forward.length && !rules.input.length && !rules.natChains.length;
  if (empty) return null;
  return {
    name: 'firewall',
    filter: {
      sets: rules.filterSets,
      chains: rules.filterChains,
      hooks: { forward_rules: rules.forward, input_rules: rules.input },
    },
    nat: {
      sets: rules.natSets,
      chains: rules.natChains,
      hooks: {
        prerouting_rules: rules.natChains.some((c) => c.name === 'fw_dstnat') ? ['jump fw_dstnat'] : [],
        postrouting_rules: rules.natChains.some((c) => c.name === 'fw_srcnat') ? ['jump fw_srcnat'] : [],
      },
    },
  };
}
