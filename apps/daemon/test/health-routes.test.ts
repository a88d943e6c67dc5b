import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { HEALTH_MONITOR_INTERVAL, type HealthCheck, type HealthReport } from '@portico/schema';
import { addAccount, adminClient, CONDITION_WAIT, get, json, login, post, startDaemon, TestClock, type Client, type Harness } from './daemon-harness.js';
import type { L2Probe } from '../src/domains/health/health-detectors.js';
import { measureUpstream } from '../src/domains/health/health-network-probe.js';
import type { LinkCounters } from '../src/domains/health/health-system.js';
import type { Scheduler } from '../src/config/config-types.js';

const GW = '02:00:00:00:00:01';
const ROGUE = '02:66:66:66:66:66';

/** What the fake wire answers this round. */
const wire = { rogueArp: false, pairArp: false, loop: false };
const CLIENT_A = '02:aa:00:00:00:01';
const CLIENT_B = '02:bb:00:00:00:02';

/** An ARP reply from `mac` claiming `ip`. */
function arpReply(mac: string, ip: string): { ifname: string; frame: Buffer } {
  const arp = Buffer.alloc(28);
  arp.writeUInt16BE(1, 0);
  arp.writeUInt16BE(0x0800, 2);
  arp[4] = 6;
  arp[5] = 4;
  arp.writeUInt16BE(2, 6);
  Buffer.from(mac.replaceAll(':', ''), 'hex').copy(arp, 8);
  Buffer.from(ip.split('.').map(Number)).copy(arp, 14);
  return { ifname: 'lanp1', frame: Buffer.concat([Buffer.from('020000000001' + mac.replaceAll(':', '') + '0806', 'hex'), arp]) };
}

/** ARP replies of the rogue holder of 192.168.11.1 and of two clients both holding .20; our loop probe back on lanp2. */
let circling: Buffer | null = null;
const probe: L2Probe = async (_device, _ms, frames) => {
  // Listening only: our earlier loop probe comes round again while the loop is there.
  if (frames === null) return wire.loop && circling ? [{ ifname: 'lanp2', frame: circling }] : [];
  const frame = Buffer.isBuffer(frames) ? frames : frames[0]!;
  const type = frame.readUInt16BE(12);
  if (type === 0x0806) {
    return [...(wire.rogueArp ? [arpReply(ROGUE, '192.168.11.1')] : []), ...(wire.pairArp ? [arpReply(CLIENT_B, '192.168.11.20'), arpReply(CLIENT_A, '192.168.11.20')] : [])];
  }
  if (type === 0x88b5 && wire.loop) {
    circling = frame;
    return [{ ifname: 'lanp2', frame }];
  }
  return [];
};

/** The monitor's timer, fired by the test. */
let pending: (() => void) | null = null;
const schedule: Scheduler = (_ms, work) => {
  pending = work;
  return () => {
    if (pending === work) pending = null;
  };
};

const counters: LinkCounters = { rxBytes: 1000, txBytes: 500, rxPackets: 10, txPackets: 5, rxDropped: 1, txDropped: 0 };

/** A DNS server on loopback answering every A question with 127.0.0.1. */
function dnsServer(): Promise<Socket> {
  const socket = createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    if (msg.length < 12) return;
    let at = 12;
    while (at < msg.length && msg[at] !== 0) at += msg[at]! + 1;
    const question = msg.subarray(12, at + 5);
    const head = Buffer.from(msg.subarray(0, 12));
    head.writeUInt16BE(0x8180, 2);
    head.writeUInt16BE(1, 6);
    const answer = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1]);
    socket.send(Buffer.concat([head, question, answer]), rinfo.port, rinfo.address);
  });
  return new Promise((resolve) => socket.bind(0, '127.0.0.1', () => resolve(socket)));
}

let h: Harness;
let admin: Client;
let dns: Socket;
let web: Server;
const hosts: string[] = [];
const clock = new TestClock(new Date(2025, 2, 1, 23, 59, 50).getTime());

beforeAll(async () => {
  dns = await dnsServer();
  web = createServer((req, res) => {
    hosts.push(String(req.headers.host));
    res.end('ok');
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const upstream = { interface: 'wan1', server: `127.0.0.1:${(dns.address() as AddressInfo).port}`, domain: 'probe.test', httpPort: (web.address() as AddressInfo).port };
  h = await startDaemon({
    clock,
    deps: {
      health: {
        schedule,
        probe,
        macs: async () => new Map([['br-lan', GW], ['lanp1', '02:00:00:00:00:02']]),
        targets: () => [{ interface: 'lan', device: 'br-lan', addresses: ['192.168.11.1'] }],
        neighbours: async () => ['192.168.11.20'],
        links: () => [{ interface: 'wan1', device: 'wan1', counters: { ...counters } }],
        upstreams: () => [upstream],
        measure: (target) => measureUpstream(target, 5000),
        lines: () => [{ name: 'wan1', up: true, addressed: true }],
        ipv6: async () => false,
      },
    },
  });
  admin = await adminClient(h);
});

afterAll(async () => {
  await h?.close();
  dns?.close();
  web?.close();
});

/** Fires the monitor's timer and waits for the round to end (the next one is then scheduled). */
async function round(): Promise<HealthReport> {
  await vi.waitFor(() => expect(pending).not.toBeNull(), CONDITION_WAIT);
  const work = pending!;
  pending = null;
  work();
  await vi.waitFor(() => expect(pending).not.toBeNull(), CONDITION_WAIT);
  return report();
}

async function report(): Promise<HealthReport> {
  const body = json(await get(h.app, admin, `/api/sysconf/health?_=${clock.ms}`));
  expect(body.success).toBe(true);
  return body.data;
}

describe('sysconf/health', () => {
  test('a round reports disk, memory, upstream DNS and HTTP times (asked of the WAN upstream) and link counters', async () => {
    const r = await round();
    expect(r.interval).toBe(HEALTH_MONITOR_INTERVAL);
    expect(r.probes).toBe('running');
    expect(r.sampled).toBe(clock.ms);
    expect(r.disk.length).toBeGreaterThan(0);
    expect(r.disk[0]!.total).toBeGreaterThan(0);
    expect(r.memory!.total).toBeGreaterThan(0);
    expect(r.network).toEqual([expect.objectContaining({ interface: 'wan1', domain: 'probe.test', dnsTime: expect.any(Number), httpTime: expect.any(Number) })]);
    expect(hosts).toContain(`probe.test`);
    expect(r.links).toEqual([expect.objectContaining({ interface: 'wan1', rxBytes: 0, rxPackets: 0, rxDropped: 0 })]);
    expect(r.findings).toEqual([]);
  });

  test('link statistics count from the first reading, then again from 0:00 (fake clock over midnight)', async () => {
    counters.rxBytes += 2000;
    counters.rxDropped! += 3;
    counters.rxPackets! += 20;
    clock.advance(5); // 23:59:55
    let r = await round();
    expect(r.links[0]).toMatchObject({ rxBytes: 2000, rxDropped: 3, rxPackets: 20, rxRate: 400 });
    clock.advance(10); // 0:00:05 the next day
    counters.rxBytes += 100;
    counters.rxDropped! += 1;
    r = await round();
    expect(r.links[0]).toMatchObject({ rxBytes: 0, rxDropped: 0, since: new Date(2025, 2, 2).getTime() });
    counters.rxBytes += 70;
    counters.rxDropped! += 2;
    clock.advance(10);
    r = await round();
    expect(r.links[0]).toMatchObject({ rxBytes: 70, rxDropped: 2, rxRate: 7 });
  });

  test('a finding appends one event when first seen, none while it stays, and is gone after three rounds unseen', async () => {
    wire.rogueArp = true;
    clock.advance(10);
    let r = await round();
    expect(r.findings).toEqual([{ kind: 'ipConflict', interface: 'lan', port: '', ip: '192.168.11.1', mac: ROGUE, otherMac: '', firstSeen: clock.ms, lastSeen: clock.ms }]);
    expect(r.events.items).toEqual([{ id: expect.any(Number), time: clock.ms, kind: 'ipConflict', interface: 'lan', port: '', ip: '192.168.11.1', mac: ROGUE, otherMac: '' }]);
    clock.advance(10);
    r = await round();
    expect(r.events.total).toBe(1);
    expect(r.findings[0]!.lastSeen).toBe(clock.ms);
    wire.rogueArp = false;
    await round();
    await round();
    r = await round();
    expect(r.findings).toEqual([]);
  });

  test('two clients claiming one address: one event naming the address and both MACs, none while it persists', async () => {
    const before = (await report()).events.total;
    wire.pairArp = true;
    clock.advance(10);
    let r = await round();
    const pair = { kind: 'ipConflict', interface: 'lan', port: '', ip: '192.168.11.20', mac: CLIENT_A, otherMac: CLIENT_B };
    expect(r.findings).toEqual([{ ...pair, firstSeen: clock.ms, lastSeen: clock.ms }]);
    expect(r.events.total).toBe(before + 1);
    expect(r.events.items[0]).toEqual({ id: expect.any(Number), time: clock.ms, ...pair });
    for (let i = 0; i < 3; i++) {
      clock.advance(10);
      r = await round();
    }
    expect(r.events.total).toBe(before + 1);
    expect(r.findings).toEqual([expect.objectContaining({ ...pair, lastSeen: clock.ms })]);
    wire.pairArp = false;
    for (let i = 0; i < 3; i++) r = await round();
    expect(r.findings).toEqual([]);
  });

  test('sysconf/events says which findings become events: a disabled kind is still found but not recorded', async () => {
    const settings = json(await get(h.app, admin, `/api/sysconf/events?_=${clock.ms}`));
    expect(settings.data).toMatchObject({ dhcpServer: true, pppoeServer: true, loop: true, ipConflict: true });
    const saved = json(await post(h.app, admin, '/api/sysconf/events', { action: 'update', dhcpServer: true, pppoeServer: true, loop: false, ipConflict: true }));
    expect(saved.success).toBe(true);
    expect(json(await post(h.app, admin, '/api/sysconf/events', { action: 'update', loop: 'yes' })).success).toBe(false);
    wire.loop = true;
    const r = await round();
    expect(r.findings).toEqual([expect.objectContaining({ kind: 'loop', interface: 'lan', port: 'lanp2' })]);
    expect(r.events.items.map((e) => e.kind)).toEqual(['ipConflict', 'ipConflict']);
    wire.loop = false;
  });
});

describe('sysconf/check', () => {
  async function checkDone(): Promise<HealthCheck> {
    let state: HealthCheck | undefined;
    await vi.waitFor(async () => {
      state = json(await get(h.app, admin, `/api/sysconf/check?_=${clock.ms}`)).data;
      expect(state!.running).toBe(false);
    }, CONDITION_WAIT);
    return state!;
  }

  test('a quick check reports the line, disk, memory and the monitor findings', async () => {
    const started = json(await post(h.app, admin, '/api/sysconf/check', { action: 'start', mode: 'quick' }));
    expect(started.data).toMatchObject({ mode: 'quick', started: clock.ms });
    const done = await checkDone();
    expect(done.done).toBe(done.total);
    const keys = done.items.map((i) => i.key);
    expect(keys).toEqual(expect.arrayContaining(['line', 'disk', 'memory', 'dhcpServer', 'pppoeServer', 'loop', 'ipConflict']));
    expect(keys).not.toContain('dns');
    expect(done.items.find((i) => i.key === 'line')).toEqual({ key: 'line', result: 'ok', state: 'lineOk', subject: 'wan1', value: null });
  });

  test('a full check adds IPv6 (not obtained: warning), SD-LAN, DNS and HTTP, and probes the LANs afresh', async () => {
    wire.rogueArp = true;
    json(await post(h.app, admin, '/api/sysconf/check', { action: 'start', mode: 'full' }));
    // The full check runs its own monitoring round: the test fires the LAN probe's answers through the wire above.
    const done = await checkDone();
    expect(done.stopped).toBe(false);
    const byKey = Object.fromEntries(done.items.map((i) => [i.key, i]));
    expect(byKey.ipv6).toMatchObject({ result: 'warning', state: 'ipv6NotObtained' });
    expect(byKey.sdlan).toMatchObject({ result: 'unknown', state: 'sdlanNotEnabled' });
    expect(byKey.dns).toMatchObject({ result: 'ok', state: 'answered' });
    expect(byKey.http).toMatchObject({ result: 'ok', state: 'answered', subject: 'probe.test' });
    expect(byKey.ipConflict).toMatchObject({ result: 'fail', state: 'found', subject: 'lan', value: 1 });
    expect(byKey.dhcpServer).toMatchObject({ result: 'ok', state: 'none' });
    wire.rogueArp = false;
  });

  test('stop ends a running check; a bad command is refused with field errors', async () => {
    json(await post(h.app, admin, '/api/sysconf/check', { action: 'start', mode: 'full' }));
    const stopped = json(await post(h.app, admin, '/api/sysconf/check', { action: 'stop' }));
    expect(stopped.data).toMatchObject({ running: false, stopped: true });
    const bad = json(await post(h.app, admin, '/api/sysconf/check', { action: 'start', mode: 'slow' }));
    expect(bad.success).toBe(false);
    expect(bad.errors).toBeDefined();
  });

  test('a guest may read the health report but not start a check', async () => {
    const { password } = await addAccount(h, admin, 'watcher', 2);
    const guest = await login(h.app, 'watcher', password);
    expect(json(await get(h.app, guest, `/api/sysconf/health?_=${clock.ms}`)).success).toBe(true);
    const refused = json(await post(h.app, guest, '/api/sysconf/check', { action: 'start', mode: 'quick' }));
    expect(refused).toMatchObject({ success: false, msg: 'forbidden' });
  });
});
