import { lanSideOf, type NetworkPlan, device, hex32, integer, ipv4 } from '../network/network-public.js';
import { CLIENT_MAPS } from './qos-nftables.js';
import { CLIENT_MINOR_FIRST, CLIENT_MINOR_LAST, LINE_MINOR, CLASS_PRIO, downloadCode, ifbDevice, shapesOnIfb, type QosDownloadShaping } from './qos-plan.js';
import { classId, kbit } from './qos-syntax.js';

/**
 * Per-client speed limits for features that admit clients at run time (the hotspot's billing
 * plans): one HTB class per client and direction under the Smart QoS trees, and the client's
 * address in the run-time maps `qos_client_up` / `qos_client_down` that `qos_classify` reads
 * after the configured rules. The maps are never flushed by a reload, and the class minors
 * 0x8000-0xfffe are never used by configured rules, so both survive a QoS re-apply of the
 * maps; the classes are rebuilt when the tc script is re-run, so callers re-add their clients
 * after a QoS apply (the commands are idempotent: `replace`).
 *
 * Needs Smart QoS switched on (its HTB trees are the parents), and the download side it was
 * loaded with (qos-plan.ts): the client's download class lives on every WAN's IFB device, found
 * through its connections' download code, or on its LAN side, found by its address.
 */
export interface ClientLimit {
  ip: string;
  /** kbit/s; 0 = unlimited in that direction. */
  upKbit: number;
  downKbit: number;
}

export interface ClientLimitCommands {
  /** Lines for `tc -batch`. */
  tc: string;
  /** Lines for `nft -f`. */
  nft: string;
}

/**
 * Commands that put `limits` in place: `slot(i)` numbers the i-th client's class (0-based
 * within the client range), so a caller that keeps a client's slot can update or remove it.
 */
export function renderClientLimits(
  network: NetworkPlan,
  limits: readonly ClientLimit[],
  options: { slotOf?: (limit: ClientLimit, index: number) => number; download?: QosDownloadShaping } = {},
): ClientLimitCommands {
  const slotOf = options.slotOf ?? ((_limit, index) => index);
  const ifb = shapesOnIfb(options.download ?? 'lan');
  const tc: string[] = [];
  const up: string[] = [];
  const down: string[] = [];
  const wanDevices = network.wans.map((w) => device(w.l3));
  const ifbDevices = network.wans.map((w) => device(ifbDevice(w)));
  limits.forEach((limit, index) => {
    const address = ipv4(limit.ip);
    const slot = slotOf(limit, index);
    integer(slot, 0, CLIENT_MINOR_LAST - CLIENT_MINOR_FIRST, 'client slot');
    const minor = CLIENT_MINOR_FIRST + slot;
    const id = classId(minor);
    const htb = (dev: string, rate: number) =>
      `class replace dev ${dev} parent ${classId(LINE_MINOR)} classid ${id} htb rate ${kbit(rate)} ceil ${kbit(rate)} prio ${CLASS_PRIO.normal} quantum 1514`;
    if (limit.upKbit > 0) {
      for (const dev of wanDevices) tc.push(htb(dev, limit.upKbit));
      up.push(`${address} : ${id}`);
    }
    const lan = lanSideOf(network, address);
    if (limit.downKbit > 0 && ifb) {
      for (const dev of ifbDevices) tc.push(htb(dev, limit.downKbit));
      down.push(`${address} : ${hex32(downloadCode({ minor }))}`);
    } else if (limit.downKbit > 0 && lan) {
      tc.push(htb(device(lan.device), limit.downKbit));
      down.push(`${address} : ${id}`);
    }
  });
  const downMap = ifb ? CLIENT_MAPS.downCode : CLIENT_MAPS.down;
  const nft: string[] = [];
  if (up.length) nft.push(`add element inet portico ${CLIENT_MAPS.up} { ${up.join(', ')} }`);
  if (down.length) nft.push(`add element inet portico ${downMap} { ${down.join(', ')} }`);
  return { tc: tc.length ? `${tc.join('\n')}\n` : '', nft: nft.length ? `${nft.join('\n')}\n` : '' };
}

/** Commands that take clients' limits away again: each address leaves the maps it was put in. */
export function renderClientLimitRemoval(network: NetworkPlan, limits: readonly ClientLimit[], download: QosDownloadShaping = 'lan'): string {
  const ifb = shapesOnIfb(download);
  const up = limits.filter((l) => l.upKbit > 0).map((l) => ipv4(l.ip));
  const down = limits.filter((l) => l.downKbit > 0 && (ifb || lanSideOf(network, l.ip))).map((l) => ipv4(l.ip));
  const out: string[] = [];
  if (up.length) out.push(`delete element inet portico ${CLIENT_MAPS.up} { ${up.join(', ')} }`);
  if (down.length) out.push(`delete element inet portico ${ifb ? CLIENT_MAPS.downCode : CLIENT_MAPS.down} { ${down.join(', ')} }`);
  return out.length ? `${out.join('\n')}\n` : '';
}
