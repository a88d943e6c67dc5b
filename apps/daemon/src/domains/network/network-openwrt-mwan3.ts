import type { NetworkPlan } from './network-plan.js';
import { integer, ipv4, RenderValueError } from './network-syntax.js';
import type { UciPackage, UciSection } from '../../engine/uci-format.js';

/**
 * Multi-WAN for the `openwrt` driver as the mwan3 package (/etc/config/mwan3), the same
 * policy the linux driver routes by: balance members share the lowest metric and split new
 * connections by weight; failover members follow, one metric step per priority, so one carries
 * traffic only when every member before it is down. Track IPs are pinged through their WAN;
 * a WAN without any is taken as up. One policy covers all IPv4 traffic.
 *
 * Section names: an interface keeps its name (mwan3 matches it with /etc/config/network);
 * members carry `_m`, and the policy and rule names have an underscore, which a validated
 * interface name never has.
 */

export const MWAN3_POLICY = 'portico_wans';
const BALANCE_METRIC = 1;

/**
 * The firewall-mark bits mwan3 routes by: its default `mmx_mask`, which it uses because the
 * file is written whole with no `globals` section to change it. 6 bits: interface ids 1-60
 * (the top three values are its own). Marks other features set for mwan3
 * (openwrt-qos-routes.ts) are computed against it; Smart QoS keeps its other marks out of
 * these bits (MAC users live in bits 16-31 of the connection mark).
 */
export const MWAN3_MMX_MASK = 0x3f00;

/** mwan3 numbers its `interface` sections 1, 2, ... in file order: the id its marks carry. */
export function mwan3InterfaceIds(plan: NetworkPlan): Map<string, number> {
  return new Map(mwan3Entries(plan).map((entry, position) => [entry.interface, position + 1]));
}

/** mwan3's mark for an interface id: the id's bits spread over the mask's bits (its id2mask). */
export function mwan3Mark(id: number, mask = MWAN3_MMX_MASK): number {
  let result = 0;
  let bit = 0;
  for (let position = 0; position < 32; position++) {
    if (((mask >>> position) & 1) === 0) continue;
    if ((id >>> bit) & 1) result |= 1 << position;
    bit++;
  }
  const idBits = bit;
  // The three highest ids are mwan3's default, blackhole and unreachable marks.
  if (id < 1 || id > 2 ** idBits - 4) throw new RenderValueError(`mwan3 interface id ${id} does not fit its mark mask`);
  return result >>> 0;
}

function mwan3Entries(plan: NetworkPlan) {
  return plan.config.multiWan.filter((entry) => entry.enabled && plan.wans.some((wan) => wan.name === entry.interface));
}

function wanName(name: string): string {
  if (!/^[a-z][a-z0-9]{0,9}$/.test(name)) throw new RenderValueError(`interface name ${JSON.stringify(name)} cannot be rendered`);
  return name;
}

export function renderUciMwan3(plan: NetworkPlan): UciPackage {
  const entries = mwan3Entries(plan);
  const pkg: UciPackage = [];
  const members: string[] = [];
  for (const entry of entries) {
    const name = wanName(entry.interface);
    const tracked: UciSection['options'] = { enabled: '1', family: 'ipv4' };
    if (entry.track_ips.length) {
      Object.assign(tracked, {
        track_method: 'ping',
        track_ip: entry.track_ips.map(ipv4),
        reliability: '1',
        count: '1',
        timeout: '2',
        interval: '5',
        down: '3',
        up: '2',
      });
    }
    pkg.push({ type: 'interface', name, options: tracked });
  }
  for (const entry of entries) {
    const name = wanName(entry.interface);
    const member = `${name}_m`;
    members.push(member);
    const metric = entry.mode === 'balance' ? BALANCE_METRIC : BALANCE_METRIC + Number(integer(entry.priority, 1, 99, 'priority'));
    const options: UciSection['options'] = { interface: name, metric: integer(metric, 1, 256, 'metric') };
    options.weight = entry.mode === 'balance' ? integer(entry.weight, 1, 100, 'weight') : '1';
    pkg.push({ type: 'member', name: member, options });
  }
  if (members.length) {
    pkg.push({ type: 'policy', name: MWAN3_POLICY, options: { use_member: members, last_resort: 'unreachable' } });
    pkg.push({ type: 'rule', name: 'default_rule', options: { dest_ip: '0.0.0.0/0', proto: 'all', family: 'ipv4', use_policy: MWAN3_POLICY } });
  }
  return pkg;
}
