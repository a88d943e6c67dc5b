import type { NetworkPlan } from '../network/network-public.js';
import { collectTable, declareSets, defineSets, flushSets, type RulesetPart, nftString } from '../network/network-public.js';

/**
 * Smart QoS on OpenWrt: fw4 owns `table inet fw4`, so the QoS rules live in a table of their
 * own, `inet portico`, loaded by fw4 from its ruleset-post include folder, with the LAN and WAN
 * device sets its chains match on. The tc script is the same file as on the linux driver.
 *
 * The part's `qos_route` chain is left out: its WAN marks (index << 8) lie inside mwan3's mark
 * mask and would read as another interface's id. Port and domain routes are chosen in mwan3's
 * own marks by the chain of drivers/openwrt/openwrt-qos-routes.ts, in this same table.
 */
const LINUX_ROUTE_CHAIN = 'qos_route';
export const QOS_OPENWRT_FILES = {
  nftInclude: '/usr/share/nftables.d/ruleset-post/30-portico-qos.nft',
} as const;

const TAB = '\t';

export function renderQosOpenwrtTable(part: RulesetPart, network: NetworkPlan): string {
  const table = collectTable([part], (p) => p.filter);
  const lan = [...new Set(network.lanSides.map((s) => s.device))].map(nftString);
  const wan = network.wans.map((w) => w.l3).map(nftString);
  const ifaceSet = (name: string, values: string[]) => `${TAB}set ${name} { type ifname;${values.length ? ` elements = { ${values.join(', ')} }` : ''} }`;
  const out = [
    '# Portico Smart QoS (fw4 include). Generated; changes are overwritten.',
    'table inet portico {}',
    'flush table inet portico',
    'table inet portico {',
    `${TAB}set lan_ifaces { type ifname; }`,
    `${TAB}set wan_ifaces { type ifname; }`,
    ...declareSets(table.sets),
    '}',
    'flush set inet portico lan_ifaces',
    'flush set inet portico wan_ifaces',
    ...flushSets('inet', 'portico', table.sets),
    'table inet portico {',
    ifaceSet('lan_ifaces', lan),
    ifaceSet('wan_ifaces', wan),
    ...defineSets(table.sets),
  ];
  const chain = (name: string, rules: readonly string[], base?: string) => {
    out.push('', `${TAB}chain ${name} {`);
    if (base) out.push(`${TAB}${TAB}${base}`);
    for (const rule of rules) out.push(`${TAB}${TAB}${rule}`);
    out.push(`${TAB}}`);
  };
  for (const c of table.chains) if (c.name !== LINUX_ROUTE_CHAIN) chain(c.name, c.rules, c.base);
  out.push('}');
  return `${out.join('\n')}\n`;
}
