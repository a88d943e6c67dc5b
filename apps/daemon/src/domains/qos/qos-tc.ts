import { QOS_CLASSES } from '@portico/schema';
import { device } from '../network/network-public.js';
import {
  BUCKET_MAJOR_FIRST,
  BUCKET_MINOR_FIRST,
  CLASS_MINOR,
  CLASS_PRIO,
  CLASS_SHARE,
  CONNECTION_QOS_MASK,
  LINE_MINOR,
  SLOT_CODE_FIRST,
  SLOT_MINOR_FIRST,
  slotClass,
  BUCKET_SLOTS,
  CLIENT_MINOR_FIRST,
  type QosDevicePlan,
  type QosDownloadShaping,
  type QosPlan,
  type QosUser,
} from './qos-plan.js';
import { classId, kbit } from './qos-syntax.js';
import { ingressObjectPath, qosIngressObject, QOS_INGRESS_SECTION } from './qos-ingress-object.js';

/**
 * The traffic-control script of Smart QoS, run with `tc -batch`. Comment lines tell the
 * driver what to do around it (`qosScriptDirectives`):
 * - `# reset <device>`: a device the script owns; its root and ingress qdiscs are deleted
 *   first, so a device QoS no longer shapes is left clean and every load starts from nothing;
 * - `# ifb <device>`: an IFB device to create (and bring up) before the script runs;
 * - `# upload <device>` / `# download <device>`: the trees the traffic charts read.
 *
 * The priority classes are chosen by `skb->priority`, which HTB reads directly; a limited
 * user's class by the packet mark, read by one classic-BPF filter per qdisc (see qos-plan.ts):
 * no filter chain, and no per-packet cost that grows with the rules.
 */

/** HTB's round-robin quantum: about 10 ms of the class rate, within the bounds HTB likes. */
function quantum(rateKbit: number): number {
  return Math.min(200_000, Math.max(1514, Math.round((rateKbit * 1000) / 8 / 100)));
}

function htbClass(dev: string, parent: string, id: string, rate: number, ceil: number, prio: number): string {
  return `class add dev ${dev} parent ${parent} classid ${id} htb rate ${kbit(rate)} ceil ${kbit(ceil)} prio ${prio} quantum ${quantum(rate)}`;
}

// Classic BPF (`tc filter … bpf bytecode`): the program's result is the class id, 0 = no match.
// SKF_AD_OFF + SKF_AD_MARK as an unsigned 32-bit load offset: the packet mark.
const LOAD_MARK = '32 0 0 4294963220';
const BUCKET_MAJOR_LAST = 0x2ff;
/**
 * Root tree: a mark whose bits 16-31 name a bucket's qdisc major goes to that bucket's class
 * `1:<BUCKET_MINOR_FIRST + major - BUCKET_MAJOR_FIRST>`; any other mark does not match, and
 * the packet falls to the tree's default class.
 */
const ROOT_FILTER_PROGRAM = [
  LOAD_MARK,
  '116 0 0 16', // A >>= 16
  `53 0 3 ${BUCKET_MAJOR_FIRST}`, // A >= first major, else no match
  `37 2 0 ${BUCKET_MAJOR_LAST}`, // A > last major: no match
  `4 0 0 ${0x10000 + BUCKET_MINOR_FIRST - BUCKET_MAJOR_FIRST}`, // A += 1:0 + first minor - first major
  '22 0 0 0', // return A
  '6 0 0 0', // return 0
];
/** A bucket's qdisc: the mark is the class id itself. */
const BUCKET_FILTER_PROGRAM = [LOAD_MARK, '22 0 0 0'];

/**
 * An IFB device's root tree: the packet mark holds the connection's download code in bits
 * 16-31 (qos-plan.ts `downloadCode`). 0: no match (the default class); a user slot's code:
 * its bucket's class; any other code is a class minor of the root tree.
 */
/** A division by the slots of a bucket, a power of two, as a shift. */
const SLOTS_SHIFT = Math.log2(BUCKET_SLOTS);
const IFB_ROOT_FILTER_PROGRAM = [
  LOAD_MARK,
  '116 0 0 16', // A >>= 16: the code
  '21 8 0 0', // A == 0: return 0
  `53 5 0 ${CLIENT_MINOR_FIRST}`, // A >= the first client minor: class 1:A
  `53 0 4 ${SLOT_CODE_FIRST}`, // A < the first slot code: class 1:A
  `20 0 0 ${SLOT_CODE_FIRST}`, // A -= first slot code: the slot
  `116 0 0 ${SLOTS_SHIFT}`, // A /= slots a bucket
  `4 0 0 ${0x10000 + BUCKET_MINOR_FIRST}`, // A += 1:0 + first bucket minor
  '22 0 0 0', // return A
  '4 0 0 65536', // A += 1:0
  '22 0 0 0', // return A
  '6 0 0 0', // return 0
];
/** An IFB device's bucket qdisc: the slot in the code gives the class `<major>:<minor>` (slotClass). */
const IFB_BUCKET_FILTER_PROGRAM = [
  LOAD_MARK,
  '116 0 0 16', // A >>= 16
  `20 0 0 ${SLOT_CODE_FIRST}`, // A -= first slot code: the slot
  '7 0 0 0', // X = A
  `116 0 0 ${SLOTS_SHIFT}`, // A /= slots a bucket: the bucket
  `4 0 0 ${BUCKET_MAJOR_FIRST}`, // A += first major
  '100 0 0 16', // A <<= 16
  '2 0 0 0', // M[0] = A
  '135 0 0 0', // A = X
  `84 0 0 ${BUCKET_SLOTS - 1}`, // A %= slots a bucket
  `4 0 0 ${SLOT_MINOR_FIRST}`, // A += first slot minor
  '7 0 0 0', // X = A
  '96 0 0 0', // A = M[0]
  '12 0 0 0', // A += X
  '22 0 0 0', // return A
];

function bpfFilter(dev: string, parent: string, program: readonly string[]): string {
  return `filter add dev ${dev} parent ${parent} protocol all prio 1 bpf bytecode "${program.length},${program.join(',')}"`;
}

/** The classes of limited users on one device, by bucket, with the rate each is capped at. */
function userClasses(devicePlan: QosDevicePlan, users: readonly QosUser[]): Map<number, Array<{ id: string; rate: number }>> {
  const buckets = new Map<number, Array<{ id: string; rate: number }>>();
  for (const user of users) {
    // A user's download comes through any WAN (IFB) but only to the LAN side it lives on.
    if (devicePlan.direction === 'down' && devicePlan.ingressOf === undefined && !user.lanDevices.includes(devicePlan.device)) continue;
    const limits = user[devicePlan.direction];
    const slots: Array<[number | undefined, number]> = [
      [user.insideSlot, limits.inside],
      [user.outsideSlot, limits.outside],
    ];
    for (const [slot, rate] of slots) {
      if (slot === undefined || rate <= 0) continue;
      const place = slotClass(slot);
      let list = buckets.get(place.bucket);
      if (!list) buckets.set(place.bucket, (list = []));
      list.push({ id: classId(place.minor, place.major), rate: Math.min(rate, devicePlan.rate) });
    }
  }
  return buckets;
}

/** The HTB tree of one device: line class, four priority classes, the buckets of limited users. */
export function deviceTreeLines(plan: QosDevicePlan, users: readonly QosUser[] = []): string[] {
  const dev = device(plan.device);
  const line = classId(LINE_MINOR);
  const lines = [
    `qdisc add dev ${dev} root handle 1: htb default ${plan.defaultMinor.toString(16)} r2q 10`,
    htbClass(dev, '1:', line, plan.rate, plan.rate, 0),
  ];
  for (const target of QOS_CLASSES) {
    const share = Math.max(1, Math.floor(plan.rate * CLASS_SHARE[target]));
    lines.push(htbClass(dev, line, classId(CLASS_MINOR[target]), share, plan.rate, CLASS_PRIO[target]));
  }
  const ifb = plan.ingressOf !== undefined;
  lines.push(bpfFilter(dev, '1:', ifb ? IFB_ROOT_FILTER_PROGRAM : ROOT_FILTER_PROGRAM));
  for (const [bucket, classes] of [...userClasses(plan, users)].sort((a, b) => a[0] - b[0])) {
    const major = `${(BUCKET_MAJOR_FIRST + bucket).toString(16)}:`;
    // The bucket is guaranteed what its users are (up to the line) and may borrow the line.
    const guaranteed = Math.min(plan.rate, classes.reduce((sum, c) => sum + c.rate, 0));
    lines.push(
      htbClass(dev, line, classId(BUCKET_MINOR_FIRST + bucket), guaranteed, plan.rate, CLASS_PRIO.normal),
      `qdisc add dev ${dev} parent ${classId(BUCKET_MINOR_FIRST + bucket)} handle ${major} htb r2q 10`,
      bpfFilter(dev, major, ifb ? IFB_BUCKET_FILTER_PROGRAM : BUCKET_FILTER_PROGRAM),
    );
    for (const { id, rate } of classes) lines.push(htbClass(dev, major, id, rate, rate, CLASS_PRIO.normal));
  }
  return lines;
}

/**
 * A WAN's ingress goes to its IFB device: `ctinfo` (or, with `ifb-bpf`, the eBPF classifier
 * qos-ingress-mark.bpf.c) copies the connection mark's download code to the packet mark; either
 * finds the connection itself, since conntrack has not seen the packet yet. Then `mirred` hands
 * the packet to the IFB device's tree, which sends it on into the stack.
 */
export function ingressRedirectLines(wan: string, ifb: string, download: QosDownloadShaping = 'ifb', object: () => string | null = qosIngressObject): string[] {
  const dev = device(wan);
  const match =
    download === 'ifb-bpf'
      ? `bpf obj ${ingressObjectPath(object())} sec ${QOS_INGRESS_SECTION}`
      : `u32 match u32 0 0 action ctinfo cpmark 0x${CONNECTION_QOS_MASK.toString(16)}`;
  return [`qdisc add dev ${dev} handle ffff: ingress`, `filter add dev ${dev} parent ffff: protocol all prio 1 ${match} action mirred egress redirect dev ${device(ifb)}`];
}

export function renderQosTc(plan: QosPlan): string {
  const out = ['# Portico Smart QoS traffic control. Generated; changes are overwritten.'];
  for (const dev of plan.ownedDevices) out.push(`# reset ${device(dev)}`);
  for (const devicePlan of plan.devices) {
    if (devicePlan.ingressOf !== undefined) out.push(`# ifb ${device(devicePlan.device)}`);
    out.push(`# ${devicePlan.direction === 'up' ? 'upload' : 'download'} ${device(devicePlan.device)}`);
  }
  for (const devicePlan of plan.devices) {
    out.push(...deviceTreeLines(devicePlan, plan.users));
    // The redirect comes after the IFB's tree, so no packet reaches a device without one.
    if (devicePlan.ingressOf !== undefined) out.push(...ingressRedirectLines(devicePlan.ingressOf, devicePlan.device, plan.download));
  }
  return `${out.join('\n')}\n`;
}

export interface QosScriptDirectives {
  reset: string[];
  ifb: string[];
  upload: string[];
  download: string[];
}

/** What a tc script's comment lines ask of the driver (see the top of this file). */
export function qosScriptDirectives(content: string): QosScriptDirectives {
  const out: QosScriptDirectives = { reset: [], ifb: [], upload: [], download: [] };
  for (const m of content.matchAll(/^# (reset|ifb|upload|download) ([A-Za-z0-9._-]{1,15})$/gm)) out[m[1] as keyof QosScriptDirectives].push(m[2]!);
  return out;
}

const CLASS_LINE = /^class add dev (\S+) parent (\S+) classid (\S+) htb /;
const BUCKET_PART = /^(?:qdisc add dev (\S+) parent (\S+) handle|filter add dev (\S+) parent (\S+) protocol all prio 1 bpf bytecode "2,)/;

interface TcScriptParts {
  /** Everything but buckets and users: a difference here means a rebuild. */
  frame: string;
  /** Bucket classes by `dev classid`, with their lines (class, qdisc, filter). */
  buckets: Map<string, { line: string; extra: string[] }>;
  /** Users' classes by `dev classid`, with the key of their bucket. */
  users: Map<string, { line: string; bucket: string }>;
}

function splitScript(text: string): TcScriptParts {
  const frame: string[] = [];
  const buckets = new Map<string, { line: string; extra: string[] }>();
  const users = new Map<string, { line: string; bucket: string }>();
  /** Which bucket class holds each nested qdisc (`dev major:`). */
  const holder = new Map<string, string>();
  const isBucket = (id: string) => {
    const [major, minor] = id.split(':');
    return major === '1' && Number.parseInt(minor!, 16) >= BUCKET_MINOR_FIRST && Number.parseInt(minor!, 16) < 0x8000;
  };
  for (const line of text.split('\n')) {
    const cls = CLASS_LINE.exec(line);
    if (cls && isBucket(cls[3]!)) {
      buckets.set(`${cls[1]} ${cls[3]}`, { line, extra: [] });
      continue;
    }
    if (cls && holder.has(`${cls[1]} ${cls[2]}`)) {
      users.set(`${cls[1]} ${cls[3]}`, { line, bucket: holder.get(`${cls[1]} ${cls[2]}`)! });
      continue;
    }
    const part = BUCKET_PART.exec(line);
    if (part) {
      const qdisc = part[1] !== undefined;
      const dev = qdisc ? part[1]! : part[3]!;
      const parent = qdisc ? part[2]! : part[4]!;
      // A nested qdisc: `… parent <bucket class> handle <major>:`; its filter: `… parent <major>:`.
      const bucketKey = qdisc ? `${dev} ${parent}` : holder.get(`${dev} ${parent}`);
      const bucket = bucketKey === undefined ? undefined : buckets.get(bucketKey);
      if (bucket && bucketKey) {
        bucket.extra.push(line);
        if (qdisc) holder.set(`${dev} ${line.slice(line.lastIndexOf(' handle ') + 8).split(' ')[0]}`, bucketKey);
        continue;
      }
    }
    frame.push(line);
  }
  return { frame: frame.join('\n'), buckets, users };
}

/**
 * The commands that turn the live result of `previous` into that of `next` without rebuilding:
 * adding or deleting a class makes the kernel walk its qdisc's classes, while changing a rate
 * is cheap, so an edit on a device with thousands of users must not rebuild its tree. Null
 * when the two scripts differ in anything but buckets and users' classes (devices, line
 * rates, priority classes): then the script runs whole, after the reset.
 */
export function tcDelta(previous: string, next: string): string[] | null {
  const before = splitScript(previous);
  const after = splitScript(next);
  if (before.frame !== after.frame) return null;
  const change = (line: string) => line.replace(/^class add /, 'class change ');
  const out: string[] = [];
  // Users of buckets that stay go one by one; a bucket that goes takes its users with it.
  for (const [key, user] of before.users) {
    if (!after.users.has(key) && after.buckets.has(user.bucket)) out.push(`class del dev ${key.replace(' ', ' classid ')}`);
  }
  for (const key of before.buckets.keys()) {
    if (!after.buckets.has(key)) out.push(`class del dev ${key.replace(' ', ' classid ')}`);
  }
  for (const [key, bucket] of after.buckets) {
    const old = before.buckets.get(key);
    if (old === undefined) out.push(bucket.line, ...bucket.extra);
    else if (old.line !== bucket.line) out.push(change(bucket.line));
  }
  for (const [key, user] of after.users) {
    const old = before.users.get(key);
    if (old === undefined || !before.buckets.has(user.bucket)) out.push(user.line);
    else if (old.line !== user.line) out.push(change(user.line));
  }
  return out;
}
