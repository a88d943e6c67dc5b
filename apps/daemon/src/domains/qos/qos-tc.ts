import { QOS_CLASSES } from '@portico/schema';
import { device } from '../network/network-syntax.js';
import { CLASS_MINOR, CLASS_PRIO, CLASS_SHARE, LINE_MINOR, type QosDevicePlan, type QosPlan, type QosUser } from './qos-plan.js';
import { classId, kbit } from './qos-syntax.js';

/**
 * The traffic-control script of Smart QoS, run with `tc -batch`. Each device it owns is
 * announced by a `# reset <device>` line: the driver deletes that device's root qdisc first,
 * so a device QoS no longer shapes is left clean and every load starts from nothing.
 *
 * HTB classifies by `skb->priority`, which the ruleset's `qos_classify` chain sets, so the
 * script holds classes only: no filters, and no per-packet cost that grows with the rules.
 */

/** HTB's round-robin quantum: about 10 ms of the class rate, within the bounds HTB likes. */
function quantum(rateKbit: number): number {
  return Math.min(200_000, Math.max(1514, Math.round((rateKbit * 1000) / 8 / 100)));
}

function htbClass(dev: string, parent: string, minor: number, rate: number, ceil: number, prio: number): string {
  return `class add dev ${dev} parent ${parent} classid ${classId(minor)} htb rate ${kbit(rate)} ceil ${kbit(ceil)} prio ${prio} quantum ${quantum(rate)}`;
}

/** The classes of one limited user on one device, for the window states that limit it. */
export function userClassLines(dev: string, direction: 'up' | 'down', user: QosUser, lineRate: number): string[] {
  const lines: string[] = [];
  const rates: Array<[number | undefined, number]> = [
    [user.insideMinor, user[direction].inside],
    [user.outsideMinor, user[direction].outside],
  ];
  for (const [minor, rate] of rates) {
    if (minor === undefined || rate <= 0) continue;
    const capped = Math.min(rate, lineRate);
    lines.push(htbClass(dev, classId(LINE_MINOR), minor, capped, capped, CLASS_PRIO.normal));
  }
  return lines;
}

/** The HTB tree of one device: line class, four priority classes. */
export function deviceTreeLines(plan: QosDevicePlan): string[] {
  const dev = device(plan.device);
  const lines = [
    `qdisc add dev ${dev} root handle 1: htb default ${plan.defaultMinor.toString(16)} r2q 10`,
    htbClass(dev, '1:', LINE_MINOR, plan.rate, plan.rate, 0),
  ];
  for (const target of QOS_CLASSES) {
    const share = Math.max(1, Math.floor(plan.rate * CLASS_SHARE[target]));
    lines.push(htbClass(dev, classId(LINE_MINOR), CLASS_MINOR[target], share, plan.rate, CLASS_PRIO[target]));
  }
  return lines;
}

export function renderQosTc(plan: QosPlan): string {
  const out = ['# Portico Smart QoS traffic control. Generated; changes are overwritten.'];
  for (const dev of plan.ownedDevices) out.push(`# reset ${device(dev)}`);
  for (const devicePlan of plan.devices) {
    out.push(...deviceTreeLines(devicePlan));
    for (const user of plan.users) {
      if (devicePlan.direction === 'down' && !user.lanDevices.includes(devicePlan.device)) continue;
      out.push(...userClassLines(devicePlan.device, devicePlan.direction, user, devicePlan.rate));
    }
  }
  return `${out.join('\n')}\n`;
}

/** Devices a tc script resets before it runs (its `# reset <device>` lines). */
export function tcResetDevices(content: string): string[] {
  return [...content.matchAll(/^# reset ([A-Za-z0-9._-]{1,15})$/gm)].map((m) => m[1]!);
}

const CLASS_LINE = /^class add dev (\S+) parent (\S+) classid (\S+) htb (.*)$/;

/**
 * The commands that turn the live result of `previous` into that of `next` without rebuilding:
 * HTB makes adding or deleting a class cost time in proportion to the classes already there,
 * while changing a rate is cheap, so a rule edit on a device with thousands of users must not
 * rebuild its tree. Null when the two scripts differ in anything but leaf classes (devices,
 * line rates, priority classes): then the script runs whole, after the reset.
 */
export function tcDelta(previous: string, next: string): string[] | null {
  const split = (text: string) => {
    const frame: string[] = [];
    const classes = new Map<string, string>();
    for (const line of text.split('\n')) {
      const match = CLASS_LINE.exec(line);
      if (match && match[2] === classId(LINE_MINOR) && !Object.values(CLASS_MINOR).map(classId).includes(match[3]!)) {
        classes.set(`${match[1]} ${match[3]}`, line);
      } else {
        frame.push(line);
      }
    }
    return { frame: frame.join('\n'), classes };
  };
  const before = split(previous);
  const after = split(next);
  if (before.frame !== after.frame) return null;
  const out: string[] = [];
  for (const key of before.classes.keys()) {
    if (!after.classes.has(key)) {
      const [dev, id] = key.split(' ');
      out.push(`class del dev ${dev} classid ${id}`);
    }
  }
  for (const [key, line] of after.classes) {
    const old = before.classes.get(key);
    if (old === line) continue;
    out.push(old === undefined ? line : line.replace(/^class add /, 'class change '));
  }
  return out;
}
