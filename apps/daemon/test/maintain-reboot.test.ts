import { afterEach, describe, expect, test, vi } from 'vitest';
import type { Scheduler } from '../src/config/config-types.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { createRebooter, RestartState } from '../src/domains/maintain/maintain-reboot.js';
import { adminClient, CONDITION_WAIT, get, json, post, startDaemon, tempDir, type Client, type Harness } from './daemon-harness.js';
import { BACKUP_URL, REBOOT_URL, RecordingApplier } from './maintain-fixture.js';

/** Timers a test fires by hand. */
class ManualScheduler {
  jobs: Array<{ ms: number; work: () => void; cancelled: boolean }> = [];
  schedule: Scheduler = (ms, work) => {
    const job = { ms, work, cancelled: false };
    this.jobs.push(job);
    return () => {
      job.cancelled = true;
    };
  };
  /** Runs every job scheduled so far; returns their delays. */
  runAll(): number[] {
    const due = this.jobs.splice(0).filter((j) => !j.cancelled);
    for (const job of due) job.work();
    return due.map((j) => j.ms);
  }
}

/** Records commands instead of running them. */
function spyRunner(exitCode = 0): { run: CommandRunner; calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    run: async (argv) => {
      calls.push([...argv]);
      return { exitCode, stdout: '', stderr: exitCode ? 'failed' : '' };
    },
  };
}


let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function simDaemon(): Promise<{ h: Harness; admin: Client; timers: ManualScheduler; applier: RecordingApplier; runner: ReturnType<typeof spyRunner> }> {
  const timers = new ManualScheduler();
  const applier = new RecordingApplier();
  const runner = spyRunner();
  h = await startDaemon({
    env: { PORTICO_LAN_PORTS: 'eth1' },
    deps: { config: { applier }, maintain: { schedule: timers.schedule, run: runner.run, simRestartSeconds: 5 } },
  });
  return { h, admin: await adminClient(h), timers, applier, runner };
}

describe('reboot (sim driver)', () => {
  test('reboot=1: the daemon answers 503 while it restarts, then applies everything as a start does', async () => {
    const { h, admin, timers, applier, runner } = await simDaemon();
    const res = json(await post(h.app, admin, REBOOT_URL, { reboot: 1 }));
    expect(res).toEqual({ success: true, data: { restarting: true, elapsedSeconds: 0, expectedSeconds: 5 } });

    const during = await get(h.app, admin, '/api/islogin');
    expect(during.statusCode).toBe(503);
    expect(json(during)).toEqual({ success: false, msg: 'msg.rebooting' });
    // No write lands while the device is down.
    expect((await post(h.app, admin, BACKUP_URL, { reset: 1 })).statusCode).toBe(503);
    h.clock.advance(3);
    expect((await get(h.app, admin, '/api/islogin')).statusCode).toBe(503);

    const appliesBefore = applier.calls.length;
    expect(timers.runAll()).toEqual([5000]);
    // Wait for the restart to be over (a condition, not a fixed time).
    await vi.waitFor(async () => {
      expect(applier.calls.slice(appliesBefore).map((c) => c.full)).toEqual([true]);
      expect((await get(h.app, admin, '/api/islogin')).statusCode).toBe(200);
    }, CONDITION_WAIT);
    expect(json(await get(h.app, admin, REBOOT_URL)).data).toMatchObject({ restarting: false });
    // The simulated device never runs a command.
    expect(runner.calls).toEqual([]);
  });

  test('a second reboot while restarting does not schedule another', async () => {
    const { h, admin, timers } = await simDaemon();
    await post(h.app, admin, REBOOT_URL, { reboot: 1 });
    await post(h.app, admin, REBOOT_URL, { reboot: 1 });
    expect(timers.jobs).toHaveLength(1);
  });

  test('reboot needs reboot=1', async () => {
    const { h, admin, timers } = await simDaemon();
    expect(json(await post(h.app, admin, REBOOT_URL, {}))).toMatchObject({ success: false, errors: { reboot: 'validation.option' } });
    expect(json(await post(h.app, admin, REBOOT_URL, { reboot: 2 }))).toMatchObject({ success: false });
    expect(timers.jobs).toHaveLength(0);
  });
});

describe('factory reset', () => {
  test('reset=1: the configuration goes back to the factory defaults as one revision, then the device restarts and applies it', async () => {
    const { h, admin, timers, applier } = await simDaemon();
    const added = json(await post(h.app, admin, '/api/vpnclient', { action: 'add', type: 'pptp', name: 'office', server: 'vpn.example.com', username: 'u1', password: 'Secret-1234' }));
    expect(added.success).toBe(true);
    const dhcp = h.app.appContext.config.journal.capture().dhcpServer![0]!;
    const changed = json(await post(h.app, admin, '/api/dhcp', { action: 'update', id: dhcp.id, pool_size: 50 }));
    expect(changed.success).toBe(true);
    expect(changed.data.confirm).toBeUndefined();

    const res = json(await post(h.app, admin, BACKUP_URL, { reset: 1 }));
    expect(res.success).toBe(true);
    expect(res.data).toMatchObject({ restarting: true, expectedSeconds: 5 });
    const snapshot = h.app.appContext.config.journal.capture();
    expect(snapshot.vpnClient ?? []).toEqual([]);
    expect(snapshot.networkInterface).toHaveLength(1);
    expect(snapshot.networkInterface![0]!.data).toMatchObject({ ifname: 'lan', ipaddr: '192.168.11.1', hwport: ['eth1'] });
    expect(snapshot.dhcpServer![0]!.data).toMatchObject({ interface: 'lan', start: '192.168.11.100', pool_size: 100 });
    const revision = h.app.appContext.config.journal.get(res.data.revision as number)!;
    expect(revision.summary).toEqual({ key: 'factoryReset' });

    const appliesBefore = applier.calls.length;
    timers.runAll();
    // Wait for the restart to be over (a condition, not a fixed time).
    await vi.waitFor(async () => expect(json(await get(h.app, admin, BACKUP_URL)).data).toMatchObject({ rebootRequired: false, reason: null }), CONDITION_WAIT);
    const applied = applier.calls.slice(appliesBefore);
    expect(applied).toHaveLength(1);
    expect(applied[0]!.snapshot.networkInterface![0]!.data.ipaddr).toBe('192.168.11.1');
  });

  test('refused while a change waits for its confirmation', async () => {
    const { h, admin, timers } = await simDaemon();
    const lan = h.app.appContext.config.journal.capture().networkInterface![0]!;
    const changed = json(await post(h.app, admin, '/api/network', { action: 'update', id: lan.id, mtu: 1400 }));
    expect(changed.data.confirm).toBeDefined();
    expect(json(await post(h.app, admin, BACKUP_URL, { reset: 1 }))).toEqual({ success: false, msg: 'msg.confirmPending' });
    expect(timers.jobs.every((j) => j.ms !== 5000)).toBe(true);
  });
});

describe('reboot (linux and openwrt drivers)', () => {
  test('linux: systemctl reboot through the runner, after the reply has left', async () => {
    const timers = new ManualScheduler();
    const runner = spyRunner();
    h = await startDaemon({
      env: { PORTICO_DRIVER: 'linux', PORTICO_SYSTEM_ROOT: tempDir() },
      deps: { config: { applier: new RecordingApplier() }, maintain: { schedule: timers.schedule, run: runner.run } },
    });
    const admin = await adminClient(h);
    const res = json(await post(h.app, admin, REBOOT_URL, { reboot: 1 }));
    expect(res.data).toMatchObject({ restarting: true, expectedSeconds: 90 });
    expect(runner.calls).toEqual([]);
    expect(timers.runAll()).toEqual([1000]);
    await vi.waitFor(() => expect(runner.calls).toEqual([['systemctl', 'reboot']]), CONDITION_WAIT);
  });

  test('openwrt: reboot; a failed command ends the restart state so the console sees the device again', async () => {
    const timers = new ManualScheduler();
    const runner = spyRunner(1);
    const state = new RestartState(() => 0);
    const reports: string[] = [];
    const rebooter = createRebooter({
      driver: 'openwrt',
      state,
      run: runner.run,
      schedule: timers.schedule,
      restartServices: async () => undefined,
      report: (_error, what) => reports.push(what),
    });
    rebooter.reboot();
    expect(state.active).toBe(true);
    timers.runAll();
    await vi.waitFor(() => expect(state.active).toBe(false), CONDITION_WAIT);
    expect(runner.calls).toEqual([['reboot']]);
    expect(reports).toEqual(['reboot failed']);
  });
});
