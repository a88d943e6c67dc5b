import { clockMinutes, LINE_SPEED_DEFAULT_KBIT, QOS_CLASSES, usernetAddresses, WEEKDAYS, type QosClass, type Weekday } from '@portico/schema';
import { lanSideOf, type NetworkPlan, type WanPlan } from '../network/network-public.js';
import type { QosConfig } from './qos-config.js';

/**
 * How Smart QoS maps onto the kernel, worked out once so the nftables part and the tc script
 * name the same classes:
 * - every WAN's egress (upload) and the download side get an HTB tree `1:` with the line class
 *   `1:1` and the four priority classes `1:10`…`1:40`. The download side is, where the kernel
 *   can (`ifb` below), an IFB device per WAN that the WAN's ingress is redirected to, shaped
 *   to that WAN's download rate; elsewhere every LAN-side device's egress (`lan`), shaped to
 *   the sum of the WANs' download rates;
 * - every address (or MAC) a bandwidth rule limits gets a leaf class of its own per window
 *   state (inside / outside its weekly window): its slot. Slots live 64 to a bucket: bucket
 *   `b` is the class `1:<1000+b>` holding a nested HTB qdisc `<100+b>:` whose classes are the
 *   slots `<100+b>:10`…`<100+b>:4f`. The kernel walks every class of a qdisc each time it
 *   creates one, so a flat tree of thousands makes loading quadratic; buckets keep each walk
 *   to 64 classes (5,000 rules: about 0.2 s a device instead of 1 s);
 * - nftables puts each forwarded packet in its class: the priority classes by `meta priority`
 *   (HTB reads it directly), a limited user by the packet mark `<major><minor>` from maps
 *   keyed by address, read by one fixed classic-BPF filter per qdisc (`bucketFilter`): one
 *   lookup per packet whatever the number of rules. Maps are grouped by time window, so the
 *   rules that pick the inside or outside class grow with the number of distinct windows.
 * - `lan`: a MAC rule's download traffic is recognised by its connection: the connection
 *   mark's bits 16-31 carry the MAC user's number, set on the first packet from the LAN.
 * - `ifb`: a packet arriving on a WAN still has the WAN's address (NAT is undone later), so its
 *   class comes from its connection: every packet from the LAN writes the download class of
 *   its connection (`downloadCode`) in the connection mark's bits 16-31, and the WAN's ingress
 *   filter copies them to the packet mark (tc `ctinfo cpmark`) before redirecting the packet
 *   to the IFB device, whose filters read the code. Written on every packet, so a connection
 *   follows a time window's change as the upload does.
 * - `ifb-bpf`: the same, for kernels without the `ctinfo` action: the WAN's ingress filter is
 *   the eBPF classifier qos-ingress-mark.bpf.c, which looks the connection up through the
 *   kernel's conntrack kfuncs and copies the same bits.
 */

/** Where download traffic is shaped (see above). */
export type QosDownloadShaping = 'lan' | 'ifb' | 'ifb-bpf';

/**
 * A download side, or how to find it when first needed: the daemon asks the kernel on its
 * first render rather than at start (qos-kernel.ts may scan the kernel's symbol list).
 */
export type QosDownloadChoice = QosDownloadShaping | (() => QosDownloadShaping);

export function downloadSideOf(choice: QosDownloadChoice): QosDownloadShaping {
  return typeof choice === 'function' ? choice() : choice;
}

/** Whether download traffic is shaped on an IFB device per WAN (either way of copying the code). */
export function shapesOnIfb(download: QosDownloadShaping): boolean {
  return download !== 'lan';
}

export const CLASS_MINOR: Readonly<Record<QosClass, number>> = { priority: 0x10, express: 0x20, normal: 0x30, bulk: 0x40 };
/** Share of the line each class is guaranteed; the rest is lent in class order. */
export const CLASS_SHARE: Readonly<Record<QosClass, number>> = { priority: 0.4, express: 0.3, normal: 0.2, bulk: 0.1 };
export const CLASS_PRIO: Readonly<Record<QosClass, number>> = { priority: 0, express: 1, normal: 2, bulk: 3 };
export const LINE_MINOR = 0x1;
/** Slots of limited users per bucket (one nested HTB qdisc each). */
export const BUCKET_SLOTS = 64;
/** Bucket `b`: class `1:<BUCKET_MINOR_FIRST + b>` in the root tree, nested qdisc `<BUCKET_MAJOR_FIRST + b>:`. */
export const BUCKET_MINOR_FIRST = 0x1000;
export const BUCKET_MAJOR_FIRST = 0x100;
/** Slot `s` is minor `SLOT_MINOR_FIRST + s % BUCKET_SLOTS` in its bucket's qdisc. */
export const SLOT_MINOR_FIRST = 0x10;
/** As many slots as the configuration may hold (the buckets' majors stay below 0x300). */
export const USER_SLOTS = 0x7f00;
/** Minors from here on are left to per-client limits added at run time (hotspot). */
export const CLIENT_MINOR_FIRST = 0x8000;
export const CLIENT_MINOR_LAST = 0xfffe;
/** The connection mark's Smart QoS bits: a download code (`ifb`) or a MAC user's number (`lan`). */
export const CONNECTION_QOS_MASK = 0xffff0000;
export const CONNECTION_QOS_SHIFT = 16;
/** Download codes from here on are user slots (`SLOT_CODE_FIRST + slot`); below, a class minor of the root tree. */
export const SLOT_CODE_FIRST = 0x100;

export class QosBudgetError extends Error {}

/**
 * The download code of a connection (`ifb`), in the connection mark's bits 16-31: a priority
 * class or a hotspot client's minor in the root tree as it is, or a user's slot offset by
 * `SLOT_CODE_FIRST` (slots stay below `USER_SLOTS`, so codes stay below the client minors).
 */
export function downloadCode(target: { minor: number } | { slot: number }): number {
  const code = 'slot' in target ? SLOT_CODE_FIRST + target.slot : target.minor;
  return (code << CONNECTION_QOS_SHIFT) >>> 0;
}

/** A MAC user's number as the connection mark carries it (`lan`). */
export function macUserMark(macNumber: number): number {
  return (macNumber << CONNECTION_QOS_SHIFT) >>> 0;
}

/** The IFB device a WAN's ingress is redirected to (`ifb`). */
export function ifbDevice(wan: Pick<WanPlan, 'index'>): string {
  return `qifb${wan.index}`;
}

export interface SlotClass {
  bucket: number;
  /** The nested qdisc's major and the slot's minor in it. */
  major: number;
  minor: number;
  /** The packet mark that selects the class: major in bits 16-31, minor in bits 0-15. */
  mark: number;
}

/** Where a limited user's slot lives in the tc trees. */
export function slotClass(slot: number): SlotClass {
  const bucket = Math.floor(slot / BUCKET_SLOTS);
  const major = BUCKET_MAJOR_FIRST + bucket;
  const minor = SLOT_MINOR_FIRST + (slot % BUCKET_SLOTS);
  return { bucket, major, minor, mark: ((major << 16) | minor) >>> 0 };
}

export interface QosWindow {
  /** Index of the window among the distinct windows, for map names. */
  index: number;
  days: Weekday[];
  start: string;
  stop: string;
  /** All week, all day: the outside limits never apply. */
  always: boolean;
}

export interface QosUser {
  kind: 'ip' | 'mac';
  /** An IPv4 address or a lower-case MAC. */
  key: string;
  window: QosWindow;
  /** Rates in kbit/s; 0 = unlimited. */
  up: { inside: number; outside: number };
  down: { inside: number; outside: number };
  /** Class slots (see `slotClass`) of the window states that limit something. */
  insideSlot?: number;
  outsideSlot?: number;
  /** MAC users: the number carried in the connection mark. */
  macNumber?: number;
  /** LAN-side devices the user's download class lives on. */
  lanDevices: string[];
}

export interface QosDevicePlan {
  device: string;
  direction: 'up' | 'down';
  /** `ifb`: the WAN whose ingress is redirected to this device. */
  ingressOf?: string;
  /** Line rate in kbit/s. */
  rate: number;
  /** Unclassified traffic: the Normal class on a WAN; passed unshaped on the LAN side (local traffic). */
  defaultMinor: number;
}

export interface QosPlan {
  enabled: boolean;
  download: QosDownloadShaping;
  windows: QosWindow[];
  users: QosUser[];
  devices: QosDevicePlan[];
  /** Devices whose root qdisc this feature owns (reset before each load). */
  ownedDevices: string[];
}

function windowKey(days: readonly string[], start: string, stop: string): string {
  return `${days.join(',')}|${start}|${stop}`;
}

export function planQos(config: QosConfig, network: NetworkPlan, download: QosDownloadShaping = 'lan'): QosPlan {
  const lanDevices = [...new Set(network.lanSides.map((s) => s.device))];
  // Both download sides are owned whichever is used, so a change of side leaves the other clean.
  const ifbDevices = shapesOnIfb(download) ? network.wans.map(ifbDevice) : [];
  const ownedDevices = [...new Set([...network.wans.map((w) => w.l3), ...ifbDevices, ...lanDevices])];
  if (!config.base.qos) return { enabled: false, download, windows: [], users: [], devices: [], ownedDevices };

  const speedOf = new Map(config.loadBalance.map((row) => [row.interface, row]));
  const devices: QosDevicePlan[] = network.wans.map((wan) => ({
    device: wan.l3,
    direction: 'up',
    rate: speedOf.get(wan.name)?.upbandwidth ?? LINE_SPEED_DEFAULT_KBIT,
    defaultMinor: CLASS_MINOR.normal,
  }));
  const downOf = (wan: WanPlan) => speedOf.get(wan.name)?.downbandwidth ?? LINE_SPEED_DEFAULT_KBIT;
  if (shapesOnIfb(download)) {
    // Everything an IFB device carries came in through its WAN: unclassified traffic is Normal.
    for (const wan of network.wans) devices.push({ device: ifbDevice(wan), direction: 'down', ingressOf: wan.l3, rate: downOf(wan), defaultMinor: CLASS_MINOR.normal });
  } else {
    const downTotal = network.wans.reduce((sum, wan) => sum + downOf(wan), 0);
    for (const device of lanDevices) devices.push({ device, direction: 'down', rate: Math.max(downTotal, 1), defaultMinor: 0 });
  }

  const windows = new Map<string, QosWindow>();
  const windowOf = (rule: { weekdays: readonly string[]; timestart: string; timestop: string }): QosWindow => {
    const days = WEEKDAYS.filter((d) => rule.weekdays.includes(d));
    const start = rule.timestart;
    const stop = rule.timestop;
    const key = windowKey(days, start, stop);
    let window = windows.get(key);
    if (!window) {
      const always = days.length === WEEKDAYS.length && clockMinutes(start) === 0 && clockMinutes(stop) === 24 * 60;
      window = { index: windows.size, days: [...days], start, stop, always };
      windows.set(key, window);
    }
    return window;
  };

  const users: QosUser[] = [];
  const seen = new Set<string>();
  let nextSlot = 0;
  let macNumber = 1;
  const take = (): number => {
    if (nextSlot >= USER_SLOTS) throw new QosBudgetError(`bandwidth rules need more than ${USER_SLOTS} classes`);
    return nextSlot++;
  };
  const addUser = (kind: 'ip' | 'mac', key: string, rule: QosConfig['ipRules'][number], devicesOfUser: string[]) => {
    if (seen.has(`${kind}:${key}`)) return;
    seen.add(`${kind}:${key}`);
    const window = windowOf(rule);
    const user: QosUser = {
      kind,
      key,
      window,
      up: { inside: rule.upspeed1, outside: window.always ? 0 : rule.upspeed2 },
      down: { inside: rule.downspeed1, outside: window.always ? 0 : rule.downspeed2 },
      lanDevices: devicesOfUser,
    };
    if (user.up.inside || user.down.inside) user.insideSlot = take();
    if (user.up.outside || user.down.outside) user.outsideSlot = take();
    if (user.insideSlot === undefined && user.outsideSlot === undefined) return;
    if (kind === 'mac') user.macNumber = macNumber++;
    users.push(user);
  };
  for (const rule of config.ipRules) {
    if (!rule.enabled) continue;
    for (const address of usernetAddresses(rule.usernet)) {
      const side = lanSideOf(network, address);
      addUser('ip', address, rule, side ? [side.device] : lanDevices);
    }
  }
  for (const rule of config.macRules) if (rule.enabled) addUser('mac', rule.usernet.toLowerCase(), rule, lanDevices);

  return { enabled: true, download, windows: [...windows.values()], users, devices, ownedDevices };
}

export { QOS_CLASSES };
