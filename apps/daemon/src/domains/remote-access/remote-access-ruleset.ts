import { accessIpBounds, remoteAccess, type AnyEntity, type RemoteAccess } from '@portico/schema';
import { singletonRecord } from '../../config/config-domains.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { singletonDefaults } from '../../config/entity-routes.js';
import { renderOpenwrtRemoteAccess } from './remote-access-openwrt.js';
import { integer, ipv4, ipv6, nftString, type NetworkPlan, type RulesetContributor, type RulesetPart } from '../network/network-public.js';

/** The saved remote-access settings, or the declared defaults (off) before the first save. */
export function remoteAccessOf(snapshot: ConfigSnapshot): RemoteAccess {
  const stored = singletonRecord(snapshot, remoteAccess.name);
  return remoteAccess.schema.parse({ ...singletonDefaults(remoteAccess as unknown as AnyEntity), ...stored }) as RemoteAccess;
}

/** nft interval elements of the allowed sources, by family; each address re-validated. */
export function allowedElements(entries: readonly string[]): { v4: string[]; v6: string[] } {
  const out = { v4: [] as string[], v6: [] as string[] };
  for (const entry of entries) {
    const bounds = accessIpBounds(entry);
    if (!bounds) throw new Error(`not an access-IP entry: ${JSON.stringify(entry.slice(0, 60))}`);
    const addr = bounds.v6 ? ipv6 : ipv4;
    const element = bounds.first === bounds.last ? addr(bounds.first) : `${addr(bounds.first)}-${addr(bounds.last)}`;
    (bounds.v6 ? out.v6 : out.v4).push(element);
  }
  return out;
}

/**
 * Remote access as a part of the one ruleset. A connection to the chosen port on a WAN is
 * redirected to the console's own port (nat prerouting), and accepted in `wan_to_device` only
 * when conntrack says it was sent to that WAN port (`ct original proto-dst`), so the console
 * port itself stays closed on the WAN unless it is the chosen one. With allowed addresses,
 * only those sources pass (interval sets, auto-merged so overlapping entries are fine).
 */
export function remoteAccessPart(settings: RemoteAccess, plan: NetworkPlan, consolePort: number): RulesetPart | null {
  const wanDevices = plan.wans.map((w) => nftString(w.l3));
  if (wanDevices.length === 0) return null;
  const wans = wanDevices.length === 1 ? wanDevices[0]! : `{ ${wanDevices.join(', ')} }`;
  const input: string[] = [];
  const prerouting: string[] = [];
  const sets = [];
  if (settings.wan_ping) input.push('icmp type echo-request accept', 'icmpv6 type echo-request accept');
  if (settings.enabled) {
    const port = integer(settings.port, 1, 65_535, 'remote access port');
    const target = integer(consolePort, 1, 65_535, 'console port');
    const { v4, v6 } = allowedElements(settings.allowed_ips);
    const open = settings.allowed_ips.length === 0;
    const accept = `tcp dport ${target} ct original proto-dst ${port} accept`;
    if (open) input.push(accept);
    else {
      if (v4.length) {
        sets.push({ name: 'remote_access_v4', type: 'ipv4_addr', flags: ['interval'], extra: ['auto-merge'], elements: v4 });
        input.push(`ip saddr @remote_access_v4 ${accept}`);
      }
      if (v6.length) {
        sets.push({ name: 'remote_access_v6', type: 'ipv6_addr', flags: ['interval'], extra: ['auto-merge'], elements: v6 });
        input.push(`ip6 saddr @remote_access_v6 ${accept}`);
      }
    }
    if (port !== target) prerouting.push(`iifname ${wans} tcp dport ${port} redirect to :${target}`);
  }
  if (input.length === 0) return null;
  return {
    name: 'remote access',
    filter: { sets, hooks: { wan_to_device: input } },
    nat: { hooks: { prerouting_rules: prerouting } },
  };
}

export function remoteAccessContributor(consolePort: number): RulesetContributor {
  return {
    entities: [remoteAccess.name],
    part: (snapshot, plan) => remoteAccessPart(remoteAccessOf(snapshot), plan, consolePort),
    openwrt: (snapshot, plan) => renderOpenwrtRemoteAccess(remoteAccessPart(remoteAccessOf(snapshot), plan, consolePort), plan),
  };
}
