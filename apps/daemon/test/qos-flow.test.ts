import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../src/engine/command-runner.js';
import { QOS_FILES } from '../src/domains/qos/qos-config.js';
import { qosDomain } from '../src/domains/qos/qos-domain.js';
import { classBytes, linuxQosCounters, QosFlowHistory, shapedDevices, simQosCounters, type QosCounters } from '../src/domains/qos/qos-flow.js';
import { tcDelta } from '../src/domains/qos/qos-tc.js';
import { FULL_QOS, manyIpRules, qosSnapshot, rowOf } from './qos-fixture.js';

const work = mkdtempSync(join(tmpdir(), 'portico-qos-flow-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const series = (value: number) => ({ priority: value, express: value * 2, normal: 0, bulk: 0, limited: 0 });
const counters = (value: number, wan: number): QosCounters => ({ up: series(value), down: series(value * 10), wans: { wan1: { rx: wan, tx: wan / 2 } } });

describe('flow chart history', () => {
  it('turns counters into rates and averages them per range step', () => {
    const history = new QosFlowHistory();
    const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
    history.record(t0, counters(0, 0));
    history.record(t0 + 5000, counters(5000, 50_000));
    history.record(t0 + 10_000, counters(15_000, 100_000));
    const five = history.chart('5m', t0 + 10_000);
    expect(five.step).toBe(5);
    expect(five.points.map((p) => p.up.priority)).toEqual([1000, 2000]);
    expect(five.points[1]!.down.express).toBe(40_000);
    expect(five.points[0]!.wans.wan1).toEqual({ rx: 10_000, tx: 5000 });
    // The 30-minute chart has one point per 15 s: both samples averaged into it.
    expect(history.chart('30m', t0 + 10_000).points.map((p) => p.up.priority)).toEqual([1500]);
    // A counter that went down (the tree was rebuilt) reads as zero, not as a negative rate.
    history.record(t0 + 15_000, counters(0, 0));
    expect(history.chart('5m', t0 + 15_000).points.at(-1)!.up.priority).toBe(0);
    // Points older than the range fall out.
    expect(history.chart('5m', t0 + 10 * 60_000).points).toEqual([]);
    expect(history.chart('1mo', t0 + 10 * 60_000).points).toHaveLength(1);
  });

  it('simulates growing counters on the sim driver, busier in the evening than at night', () => {
    const read = simQosCounters(['wan1', 'wan2']);
    // Local times: 03:00 and 20:00 of the same day.
    const night = new Date(2026, 0, 6, 3, 0, 0).getTime();
    const evening = new Date(2026, 0, 6, 20, 0, 0).getTime();
    const rateAt = (t: number) => {
      const a = read(t);
      const b = read(t + 60_000);
      expect(Object.keys(b.wans)).toEqual(['wan1', 'wan2']);
      return (b.down.express - a.down.express) / 60;
    };
    const quiet = rateAt(night);
    const busy = rateAt(evening);
    expect(quiet).toBeGreaterThanOrEqual(0);
    expect(busy).toBeGreaterThan(quiet * 2);
  });
});

describe('HTB counters', () => {
  it('reads class bytes by priority class, user classes as limited', () => {
    const text = [
      'class htb 1:1 root rate 20Mbit ceil 20Mbit burst 1600b cburst 1600b',
      ' Sent 999 bytes 9 pkt (dropped 0, overlimits 0 requeues 0)',
      'class htb 1:10 parent 1:1 prio 0 rate 8Mbit ceil 20Mbit burst 1600b cburst 1600b',
      ' Sent 100 bytes 1 pkt (dropped 0, overlimits 0 requeues 0)',
      'class htb 1:40 parent 1:1 prio 3 rate 2Mbit ceil 20Mbit burst 1600b cburst 1600b',
      ' Sent 40 bytes 1 pkt (dropped 0, overlimits 0 requeues 0)',
      'class htb 1:100 parent 1:1 prio 2 rate 2Mbit ceil 2Mbit burst 1600b cburst 1600b',
      ' Sent 7 bytes 1 pkt (dropped 0, overlimits 0 requeues 0)',
      'class htb 1:8000 parent 1:1 prio 2 rate 1Mbit ceil 1Mbit burst 1600b cburst 1600b',
      ' Sent 3 bytes 1 pkt (dropped 0, overlimits 0 requeues 0)',
    ].join('\n');
    expect(classBytes(text)).toEqual({ priority: 100, express: 0, normal: 0, bulk: 40, limited: 10 });
    const script = qosDomain({ driver: 'linux' }).render!(qosSnapshot(FULL_QOS))[0]!.files[0]!.content;
    expect(shapedDevices(script)).toEqual({ up: ['wan1', 'wan2'], down: ['br-lan'] });
  });

  it.skipIf(process.getuid?.() !== 0)('reads the live counters of an installed script', async () => {
    const ns = `qosflow${process.pid}`;
    await execa('ip', ['netns', 'add', ns]);
    try {
      const script = qosDomain({ driver: 'linux' }).render!(qosSnapshot(FULL_QOS))[0]!.files[0]!.content;
      for (const dev of ['wan1', 'wan2', 'br-lan']) {
        await execa('ip', ['-n', ns, 'link', 'add', dev, 'type', 'veth', 'peer', 'name', `p-${dev}`]);
        await execa('ip', ['-n', ns, 'link', 'set', dev, 'up']);
      }
      mkdirSync(join(work, 'etc/portico'), { recursive: true });
      writeFileSync(join(work, QOS_FILES.tc), script);
      await execa('ip', ['netns', 'exec', ns, 'tc', '-batch', join(work, QOS_FILES.tc)]);
      const read = linuxQosCounters({ root: work, run: (argv, options) => runCommand(['ip', 'netns', 'exec', ns, ...argv], options), sysfs: join(work, 'nosys') });
      const counters = await read();
      expect(counters.up).toEqual({ priority: 0, express: 0, normal: 0, bulk: 0, limited: 0 });
    } finally {
      await execa('ip', ['netns', 'del', ns], { reject: false });
    }
  });
});

describe('tc deltas', () => {
  const render = (rows: ReturnType<typeof manyIpRules>) =>
    qosDomain({ driver: 'linux' }).render!(qosSnapshot({ qosBase: FULL_QOS.qosBase!, qosIpRule: rows }))[0]!.files[0]!.content;

  it('changes rates, adds and deletes leaf classes without a rebuild', () => {
    const before = render(manyIpRules(3, 2000));
    const after = render([...manyIpRules(2, 3000)]);
    expect(tcDelta(before, after)).toEqual([
      'class del dev wan1 classid 100:12',
      'class del dev wan2 classid 100:12',
      'class del dev br-lan classid 100:12',
      'class change dev wan1 parent 100: classid 100:10 htb rate 3000kbit ceil 3000kbit prio 2 quantum 3750',
      'class change dev wan1 parent 100: classid 100:11 htb rate 3000kbit ceil 3000kbit prio 2 quantum 3750',
      'class change dev wan2 parent 100: classid 100:10 htb rate 3000kbit ceil 3000kbit prio 2 quantum 3750',
      'class change dev wan2 parent 100: classid 100:11 htb rate 3000kbit ceil 3000kbit prio 2 quantum 3750',
      'class change dev br-lan parent 100: classid 100:10 htb rate 3000kbit ceil 3000kbit prio 2 quantum 3750',
      'class change dev br-lan parent 100: classid 100:11 htb rate 3000kbit ceil 3000kbit prio 2 quantum 3750',
    ]);
    expect(tcDelta(before, before)).toEqual([]);
    // The bucket's guarantee follows the sum of its users' rates.
    expect(tcDelta(before, render(manyIpRules(3, 1000)))).toContain(
      'class change dev wan1 parent 1:1 classid 1:1000 htb rate 3000kbit ceil 100000kbit prio 2 quantum 3750',
    );
  });

  it('adds a bucket with its qdisc and filter, and deletes a bucket with all its users at once', () => {
    const small = render(manyIpRules(2));
    const large = render(manyIpRules(70));
    const grow = tcDelta(small, large)!;
    const wan1 = grow.filter((l) => l.includes(' wan1 '));
    expect(wan1.indexOf('qdisc add dev wan1 parent 1:1001 handle 101: htb r2q 10')).toBe(wan1.findIndex((l) => l.includes('classid 1:1001')) + 1);
    expect(wan1.findIndex((l) => l.includes('classid 101:10 '))).toBeGreaterThan(wan1.indexOf('qdisc add dev wan1 parent 1:1001 handle 101: htb r2q 10'));
    expect(wan1.filter((l) => l.startsWith('class add dev wan1 parent 100: '))).toHaveLength(62);
    const shrink = tcDelta(large, small)!;
    expect(shrink).toContain('class del dev wan1 classid 1:1001');
    expect(shrink).not.toContain('class del dev wan1 classid 101:10');
    expect(shrink).toContain('class del dev wan1 classid 100:12');
  });

  it('rebuilds when the line rates or the devices change', () => {
    const before = render(manyIpRules(3));
    const off = qosDomain({ driver: 'linux' }).render!(qosSnapshot({ qosBase: [rowOf('qosBase', '', { qos: false })] }))[0]!.files[0]!.content;
    expect(tcDelta(before, off)).toBeNull();
    const faster = qosDomain({ driver: 'linux' }).render!(
      qosSnapshot({ ...FULL_QOS, qosLoadBalance: [rowOf('qosLoadBalance', 'lb1', { interface: 'wan1', upbandwidth: 99_000 })] }),
    )[0]!.files[0]!.content;
    expect(tcDelta(qosDomain({ driver: 'linux' }).render!(qosSnapshot(FULL_QOS))[0]!.files[0]!.content, faster)).toBeNull();
  });
});
