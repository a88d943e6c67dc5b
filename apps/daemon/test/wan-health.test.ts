import { describe, expect, it } from 'vitest';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { WAN_PROBE, type WanHealthConfig } from '../src/domains/network/network-ip-batch.js';
import { WanHealthMonitor } from '../src/domains/network/network-wan-health.js';

/** A runner whose pings answer per track IP as the test says, recording every route batch. */
function fakeSystem() {
  const answering = new Set<string>();
  const batches: string[] = [];
  const pings: string[][] = [];
  const run: CommandRunner = async (argv, options) => {
    if (argv[0] === 'ping') {
      pings.push([...argv]);
      return { exitCode: answering.has(argv.at(-1)!) ? 0 : 1, stdout: '', stderr: '' };
    }
    if (argv.join(' ') === 'ip -force -batch -') {
      batches.push(options?.input ?? '');
      return { exitCode: 0, stdout: '', stderr: '' };
    }
    throw new Error(`unexpected command ${argv.join(' ')}`);
  };
  return { answering, batches, pings, run };
}

const FAILOVER: WanHealthConfig = {
  probe: WAN_PROBE,
  routes: [
    { name: 'wan1', device: 'wan1', gateway: '198.51.100.1', metric: 100, trackIps: ['192.0.2.80', '192.0.2.81'] },
    { name: 'wan2', device: 'wan2', gateway: '203.0.113.1', metric: 101, trackIps: [] },
  ],
};

const BALANCE: WanHealthConfig = {
  probe: WAN_PROBE,
  routes: [
    { name: 'wan1', device: 'wan1', gateway: '198.51.100.1', metric: 10, weight: 3, trackIps: ['192.0.2.80'] },
    { name: 'wan2', device: 'wan2', gateway: '203.0.113.1', metric: 10, weight: 1, trackIps: ['192.0.2.90'] },
  ],
};

async function rounds(monitor: WanHealthMonitor, n: number) {
  for (let i = 0; i < n; i++) await monitor.probeRound();
}

describe('WAN health monitor', () => {
  it('probes each tracked WAN out of its own device, the next track IP when the first is silent', async () => {
    const system = fakeSystem();
    system.answering.add('192.0.2.81');
    const monitor = new WanHealthMonitor({ run: system.run });
    monitor.configure(FAILOVER);
    await monitor.probeRound();
    expect(system.pings).toEqual([
      ['ping', '-q', '-c', '1', '-W', '1', '-I', 'wan1', '192.0.2.80'],
      ['ping', '-q', '-c', '1', '-W', '1', '-I', 'wan1', '192.0.2.81'],
    ]);
    expect(monitor.status()[0]).toMatchObject({ name: 'wan1', up: true, streak: 0 });
    expect(monitor.status()[0]!.rttMs).not.toBeNull();
    await monitor.stop();
  });

  it('takes a failover WAN out after failAfter silent rounds and puts it back after recoverAfter good ones', async () => {
    const system = fakeSystem();
    const monitor = new WanHealthMonitor({ run: system.run });
    monitor.configure(FAILOVER);
    await rounds(monitor, WAN_PROBE.failAfter - 1);
    expect(system.batches).toEqual([]);
    expect(monitor.status()[0]).toMatchObject({ up: true, streak: WAN_PROBE.failAfter - 1 });
    await monitor.probeRound();
    expect(monitor.status()[0]!.up).toBe(false);
    expect(system.batches).toEqual([
      'route del default via 198.51.100.1 dev wan1 proto static metric 100\nroute replace default via 203.0.113.1 dev wan2 proto static metric 101\n',
    ]);

    system.answering.add('192.0.2.80');
    await rounds(monitor, WAN_PROBE.recoverAfter - 1);
    expect(system.batches).toHaveLength(1);
    await monitor.probeRound();
    expect(monitor.status()[0]!.up).toBe(true);
    expect(system.batches[1]).toBe(
      'route replace default via 198.51.100.1 dev wan1 proto static metric 100\nroute replace default via 203.0.113.1 dev wan2 proto static metric 101\n',
    );
    await monitor.stop();
  });

  it('a single good answer resets the count: flapping never takes a WAN out', async () => {
    const system = fakeSystem();
    const monitor = new WanHealthMonitor({ run: system.run });
    monitor.configure(FAILOVER);
    for (let i = 0; i < 10; i++) {
      if (i % 2) system.answering.add('192.0.2.80');
      else system.answering.delete('192.0.2.80');
      await monitor.probeRound();
    }
    expect(system.batches).toEqual([]);
    await monitor.stop();
  });

  it('a dead balance member leaves the multipath route; with none left the route goes', async () => {
    const system = fakeSystem();
    system.answering.add('192.0.2.90');
    const monitor = new WanHealthMonitor({ run: system.run });
    monitor.configure(BALANCE);
    await rounds(monitor, WAN_PROBE.failAfter);
    expect(system.batches).toEqual(['route replace default proto static metric 10 nexthop via 203.0.113.1 dev wan2 weight 1\n']);
    system.answering.clear();
    await rounds(monitor, WAN_PROBE.failAfter);
    expect(system.batches[1]).toBe('route del default proto static metric 10\n');
    await monitor.stop();
  });

  it('a new configuration starts every WAN up again, and a monitor with no track IPs does not probe', async () => {
    const system = fakeSystem();
    const monitor = new WanHealthMonitor({ run: system.run });
    monitor.configure(FAILOVER);
    await rounds(monitor, WAN_PROBE.failAfter);
    expect(monitor.status()[0]!.up).toBe(false);
    monitor.configure({ probe: WAN_PROBE, routes: FAILOVER.routes.map((r) => ({ ...r, trackIps: [] })) });
    expect(monitor.status().every((s) => s.up)).toBe(true);
    const pings = system.pings.length;
    await monitor.probeRound();
    expect(system.pings).toHaveLength(pings);
    await monitor.stop();
  });
});
