import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CHART_RANGE_KEYS,
  CHART_RANGE_STEPS,
  chartRangePointCount,
  dashboardSchema,
  loadSeriesSchema,
  netifListSchema,
  onlineUserListSchema,
  registrationSchema,
  systemInfoSchema,
  type NetifList,
  type OnlineUserList,
} from '@portico/schema';
import type { LiveStatusSource } from '../src/drivers/live-source.js';
import { HOSTILE_HOSTNAMES, MAX_ONLINE, MIN_ONLINE } from '../src/drivers/sim/sim-clients.js';
import { SIM_IDENTITY_FILE } from '../src/drivers/sim/sim-identity.js';
import { createSimLive } from '../src/drivers/sim/sim-live.js';
import { seededRandom } from '../src/drivers/sim/sim-rhythm.js';

const START = Date.UTC(2025, 2, 3, 9, 0, 2);
const STEP_MS = 5000;

let stateDir: string;
const sources: LiveStatusSource[] = [];

beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'portico-sim-'));
});

afterEach(() => {
  while (sources.length > 0) sources.pop()!.stop();
  vi.useRealTimers();
  rmSync(stateDir, { recursive: true, force: true });
});

/** A simulated device on a hand-driven clock. */
function simAt(start = START, seed = 7, dir = stateDir) {
  const clock = { t: start };
  const sim = createSimLive({ stateDir: dir, now: () => clock.t, random: seededRandom(seed) });
  sources.push(sim);
  return { sim, clock };
}

function expectAllParse(sim: LiveStatusSource) {
  expect(dashboardSchema.parse(sim.dashboard())).toBeTruthy();
  for (const range of CHART_RANGE_KEYS) expect(loadSeriesSchema.parse(sim.loadSeries(range)).range).toBe(range);
  expect(netifListSchema.parse(sim.netif()).total).toBe(3);
  const users = onlineUserListSchema.parse(sim.onlineUsers());
  expect(users.total).toBe(users.items.length);
  expect(registrationSchema.parse(sim.registration())).toBeTruthy();
  expect(systemInfoSchema.parse(sim.system())).toBeTruthy();
}

describe('simulated live status', () => {
  it('answers every read in the shape of its schema, at start and after a day', () => {
    const { sim, clock } = simAt();
    expectAllParse(sim);
    for (let hour = 0; hour < 24; hour += 1) {
      clock.t += 3600_000;
      expectAllParse(sim);
    }
  });

  it('keeps interface counters growing and reports rates equal to the counter deltas', () => {
    const { sim, clock } = simAt();
    let before: NetifList = sim.netif();
    for (let i = 0; i < 200; i += 1) {
      clock.t += STEP_MS;
      const after = sim.netif();
      for (const port of after.items) {
        const old = before.items.find((p) => p.ifname === port.ifname)!;
        expect(port.rx_bytes).toBeGreaterThanOrEqual(old.rx_bytes);
        expect(port.tx_bytes).toBeGreaterThanOrEqual(old.tx_bytes);
        expect(port.rx_bytes - old.rx_bytes).toBe(port.rx_rate * (STEP_MS / 1000));
        expect(port.tx_bytes - old.tx_bytes).toBe(port.tx_rate * (STEP_MS / 1000));
      }
      before = after;
    }
    const wan1 = before.items.find((p) => p.ifname === 'wan1')!;
    expect(wan1.rx_bytes).toBeGreaterThan(0);
    expect(wan1.rx_rate).toBeGreaterThan(0);
  });

  it('keeps client counters consistent with their rates within a session', () => {
    const { sim, clock } = simAt();
    let before: OnlineUserList = sim.onlineUsers();
    let compared = 0;
    for (let i = 0; i < 120; i += 1) {
      clock.t += STEP_MS;
      const after = sim.onlineUsers();
      for (const user of after.items) {
        const old = before.items.find((u) => u.mac === user.mac);
        // Same session: it was online a step ago and did not reconnect since.
        if (!old || user.online_time !== old.online_time + STEP_MS / 1000) continue;
        expect(user.down_bytes - old.down_bytes).toBe(user.down_rate * (STEP_MS / 1000));
        expect(user.up_bytes - old.up_bytes).toBe(user.up_rate * (STEP_MS / 1000));
        compared += 1;
      }
      before = after;
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('advances on its own timer, which stop() clears', () => {
    vi.useFakeTimers({ now: START, toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
    const sim = createSimLive({ stateDir, random: seededRandom(3) });
    sources.push(sim);
    expect(vi.getTimerCount()).toBe(1);
    const first = sim.netif().items[0]!.rx_bytes;
    vi.advanceTimersByTime(60_000);
    const later = sim.netif().items[0]!.rx_bytes;
    expect(later).toBeGreaterThan(first);
    sim.stop();
    expect(vi.getTimerCount()).toBe(0);
    sim.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps its identity across instances on the same state folder', () => {
    const a = simAt(START, 1).sim;
    const identity = JSON.parse(readFileSync(join(stateDir, SIM_IDENTITY_FILE), 'utf8')) as { sn: string; mac: string };
    const b = simAt(START + 86_400_000, 2).sim;
    expect(b.registration()).toEqual(a.registration());
    expect(b.system().sn).toBe(identity.sn);
    expect(b.dashboard().board.sn).toBe(identity.sn);
    expect(identity.mac).toMatch(/^00(:[0-9a-f]{2}){5}$/);
    expect(identity.sn).toMatch(/^PT[0-9A-F]{14}$/);

    const otherDir = mkdtempSync(join(tmpdir(), 'portico-sim-'));
    try {
      const other = simAt(START, 99, otherDir).sim;
      expect(other.registration().sn).not.toBe(identity.sn);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('replaces a damaged identity file with a valid one', () => {
    simAt(START, 1).sim.stop();
    const path = join(stateDir, SIM_IDENTITY_FILE);
    rmSync(path);
    // A half-written file (power cut before the atomic writer existed) must not stop the daemon.
    writeFileSync(path, '{"seed": 12');
    const sim = simAt(START, 2).sim;
    expect(sim.registration().sn).toMatch(/^PT[0-9A-F]{14}$/);
    expect(JSON.parse(readFileSync(path, 'utf8')).sn).toBe(sim.registration().sn);
  });

  it('counts connected WAN links, so the device is online while one is up', () => {
    const { sim, clock } = simAt();
    const counts = new Set<number>();
    for (let i = 0; i < 2000; i += 1) {
      clock.t += 30_000;
      const dashboard = sim.dashboard();
      counts.add(dashboard.system.wanconnect);
      const upWans = sim.netif().items.filter((p) => p.role === 'wan' && p.status === 'up').length;
      expect(dashboard.system.wanconnect).toBe(upWans);
      expect(dashboard.system.wanconnect).toBeGreaterThan(0);
    }
    // The second link drops now and then (seeded run: it does within these 16 hours).
    expect([...counts].sort()).toEqual([1, 2]);
  });

  it('gives every chart range its full point count at its step, before and after time passes', () => {
    const { sim, clock } = simAt();
    const check = () => {
      for (const range of CHART_RANGE_KEYS) {
        const series = sim.loadSeries(range);
        const step = CHART_RANGE_STEPS[range];
        expect(series.step).toBe(step);
        expect(series.points, range).toHaveLength(chartRangePointCount(range));
        for (let i = 1; i < series.points.length; i += 1) {
          expect(series.points[i]!.t - series.points[i - 1]!.t).toBe(step * 1000);
        }
        expect(series.points.at(-1)!.t).toBeLessThanOrEqual(clock.t);
        expect(series.points.at(-1)!.t).toBeGreaterThan(clock.t - step * 1000);
      }
    };
    check();
    for (let i = 0; i < 50; i += 1) {
      clock.t += 7_300;
      check();
    }
    // A host asleep for three days: the charts are bridged, the counters move on.
    const before = sim.netif().items[0]!.rx_bytes;
    clock.t += 3 * 86_400_000;
    check();
    expect(sim.netif().items[0]!.rx_bytes).toBeGreaterThan(before);
    expect(sim.dashboard().system.uptime).toBeGreaterThanOrEqual(3 * 86_400);
  });

  it('rebuilds the same past from the same identity', () => {
    const a = simAt(START, 11).sim;
    const b = simAt(START, 12).sim;
    for (const range of CHART_RANGE_KEYS) {
      expect(b.loadSeries(range).points.slice(0, -1)).toEqual(a.loadSeries(range).points.slice(0, -1));
    }
    const week = a.loadSeries('1w').points;
    // A past that moves: busy afternoons and quiet nights, not a flat line.
    const rx = week.map((p) => p.rx_rate);
    expect(Math.max(...rx)).toBeGreaterThan(3 * Math.min(...rx));
  });

  it('keeps a population of 20 to 60 clients that come and go, with hostile names among them', () => {
    const { sim, clock } = simAt();
    const macs = new Set<string>();
    let hostileSeen = false;
    // A day minute by minute: what breaks the rules is collected and checked once at the end
    // (an expect per client per minute made this test slow enough to time out on a busy machine).
    const broken: string[] = [];
    for (let i = 0; i < 24 * 60; i += 1) {
      clock.t += 60_000;
      const users = sim.onlineUsers();
      if (users.total < MIN_ONLINE || users.total > MAX_ONLINE) broken.push(`minute ${i}: ${users.total} online`);
      for (const u of users.items) {
        macs.add(u.mac);
        if (!/^192\.168\.11\.\d{1,3}$/.test(u.ip)) broken.push(`minute ${i}: ip ${u.ip}`);
        if (!/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/.test(u.mac)) broken.push(`minute ${i}: mac ${u.mac}`);
        if ((u.username === '') !== (u.auth !== 'auth')) broken.push(`minute ${i}: ${u.mac} ${u.auth} with user "${u.username}"`);
        if (HOSTILE_HOSTNAMES.includes(u.hostname)) hostileSeen = true;
      }
      if (new Set(users.items.map((u) => u.ip)).size !== users.total) broken.push(`minute ${i}: an address given twice`);
    }
    expect(broken).toEqual([]);
    expect(hostileSeen).toBe(true);
    expect(macs.size).toBeGreaterThan(MAX_ONLINE);
    const names = sim.onlineUsers().items.map((u) => u.hostname);
    expect(names).toContain('<img src=x onerror=alert(1)>');
    expect(names.some((n) => n.includes('\u202E'))).toBe(true);
  });

  it('derives the dashboard user figures and top flows from the client list', () => {
    const { sim, clock } = simAt();
    clock.t += 10 * 60_000;
    const dashboard = sim.dashboard();
    const users = sim.onlineUsers().items;
    expect(dashboard.user.online).toBe(users.length);
    expect(dashboard.user.preauth).toBe(users.filter((u) => u.auth === 'preauth').length);
    expect(dashboard.user.auth).toBe(users.filter((u) => u.auth === 'auth').length);
    expect(dashboard.user.total).toBeGreaterThanOrEqual(users.length);
    const flows = users
      .map((u) => ({ ip: u.ip, flow: u.up_bytes + u.down_bytes }))
      .filter((f) => f.flow > 0)
      .sort((a, b) => b.flow - a.flow);
    expect(dashboard.user.topflows).toEqual(flows.slice(0, 5));
    expect(dashboard.system.conn_count).toBe(users.reduce((n, u) => n + u.conn_count, 0) + 12);
    expect(dashboard.system.conn_count).toBeLessThanOrEqual(dashboard.system.conn_max);
    expect(dashboard.system.memory_used).toBe(Math.round((dashboard.system.memory_total * dashboard.system.memory) / 100));
  });

  it('keeps its memory bounded over a long run', () => {
    const { sim, clock } = simAt();
    for (let i = 0; i < 3 * 24 * 12; i += 1) {
      clock.t += 5 * 60_000;
      sim.dashboard();
    }
    expect(sim.dashboard().user.total).toBeLessThanOrEqual(120);
    for (const range of CHART_RANGE_KEYS) expect(sim.loadSeries(range).points).toHaveLength(chartRangePointCount(range));
  });
});
