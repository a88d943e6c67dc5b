import type { NetworkPlan } from './network-plan.js';
import { device } from './network-syntax.js';

/**
 * Link modes of the physical ports as `ethtool` argument vectors, one per port with an
 * attribute: the driver runs each as `ethtool <args...>` (an argument array, never a shell
 * line). `auto` turns negotiation back on; a fixed mode sets speed and duplex.
 */
export function renderEthtool(plan: NetworkPlan): string {
  const commands: string[][] = [];
  for (const attribute of plan.config.portAttributes) {
    const port = device(attribute.port);
    const fixed = /^(10|100|1000)(half|full)$/.exec(attribute.link_mode);
    commands.push(fixed ? ['-s', port, 'speed', fixed[1]!, 'duplex', fixed[2]!, 'autoneg', 'off'] : ['-s', port, 'autoneg', 'on']);
  }
  return `[\n${commands.map((c) => `  ${JSON.stringify(c)}`).join(',\n')}${commands.length ? '\n' : ''}]\n`;
}

/**
 * igmpproxy configuration for IPTV in IGMP mode: multicast joins from the set-top box's LAN
 * are proxied to the IPTV upstream; every other device of the gateway is left out.
 */
export function renderIgmpProxy(plan: NetworkPlan): string | undefined {
  const tv = plan.iptv;
  if (tv?.type !== 'igmp' || !tv.downstream) return undefined;
  const lines = [
    '# Portico IPTV multicast proxy. Generated; changes are overwritten.',
    'quickleave',
    `phyint ${device(tv.upstream)} upstream ratelimit 0 threshold 1`,
    '\taltnet 0.0.0.0/0',
    `phyint ${device(tv.downstream)} downstream ratelimit 0 threshold 1`,
  ];
  const others = new Set([...plan.interfaces.map((i) => i.l3), ...plan.subInterfaces.map((s) => s.device)]);
  others.delete(tv.upstream);
  others.delete(tv.downstream);
  for (const other of others) lines.push(`phyint ${device(other)} disabled`);
  return `${lines.join('\n')}\n`;
}
