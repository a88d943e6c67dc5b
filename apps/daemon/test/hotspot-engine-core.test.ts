import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { HotspotEngine, type CredentialResult, type HotspotCredentials } from '../src/domains/hotspot/hotspot-engine.js';
import { renderClientBatch, SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { captiveJson } from '../src/domains/hotspot/hotspot-captive.js';
import type { HotspotConfig, HotspotZone } from '../src/domains/hotspot/hotspot-types.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const zone: HotspotZone = {
  name: 'guests', interfaces: ['lan'], welcome: '', contact: '', copyright: '', logintext: '', chargetext: '', tos: '',
  methods: ['voucher', 'local', 'password', 'onekey'], password: 'Shared123', redirectUrl: '', sessionSeconds: 3600, idleSeconds: 600, plan: '',
};
const config: HotspotConfig = {
  zones: [zone],
  plans: [{ name: 'day', flowBytes: 1_000_000, seconds: 86_400, upKbps: 2000, downKbps: 8000 }],
  whiteList: [],
  blackList: [],
  accountingSeconds: 10,
};

/** Vouchers: codes V1..V9 valid for the `day` plan, two devices each. */
const credentials: HotspotCredentials = {
  async redeemVoucher(code): Promise<CredentialResult> {
    if (!/^V\d$/.test(code)) return { ok: false, error: 'portal.error.code' };
    return { ok: true, grant: { account: code, plan: 'day', expiresAt: null, flowBytes: null, usernum: 2, upKbps: 0, downKbps: 0 } };
  },
  async verifyLocalUser(username, password): Promise<CredentialResult> {
    if (username !== 'alice' || password !== 'Secret123') return { ok: false, error: 'portal.error.userOrPassword' };
    return { ok: true, grant: { account: 'alice', plan: 'day', expiresAt: null, flowBytes: null, usernum: 1, upKbps: 0, downKbps: 0 } };
  },
};

function setup(stateFile?: string, clock = { t: 1_700_000_000_000 }) {
  const dataplane = new SimDataplane();
  const engine = new HotspotEngine({ dataplane, config: () => config, credentials, now: () => clock.t, stateFile });
  return { dataplane, engine, clock };
}

const client = (n: number) => ({ ip: `10.1.${Math.floor(n / 250)}.${(n % 250) + 2}`, mac: `02:00:00:00:${(n >> 8).toString(16).padStart(2, '0')}:${(n & 255).toString(16).padStart(2, '0')}` });

describe('hotspot engine', () => {
  test('logins of the same moment go to the data plane in one transaction, by element', async () => {
    const { dataplane, engine } = setup();
    await engine.start();
    const before = dataplane.transactions;
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => engine.login(client(i), zone, { method: 'onekey' })));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(dataplane.transactions - before).toBe(1);
    expect(dataplane.clients.size).toBe(200);
    const batch = renderClientBatch([{ ...client(1), timeoutSeconds: 60, upKbps: 1000, downKbps: 0 }], [client(2)]);
    expect(batch).toContain('add element inet portico hs_auth { 02:00:00:00:00:01 . 10.1.0.3 timeout 60s }');
    expect(batch).toContain('add limit inet portico hsl_10_1_0_3_up { rate over 125000 bytes/second');
    expect(batch).toContain('delete element inet portico hs_auth { 02:00:00:00:00:02 . 10.1.0.4 }');
    expect(batch).not.toMatch(/add rule/);
  });

  test('counters feed the session; the quota ends it and the portal is told why', async () => {
    const { dataplane, engine } = setup();
    await engine.start();
    const c = client(1);
    const outcome = await engine.login(c, zone, { method: 'voucher', code: 'V1' });
    expect(outcome.ok).toBe(true);
    expect(dataplane.clients.get(c.ip)).toMatchObject({ upKbps: 2000, downKbps: 8000 });
    dataplane.addTraffic(c.ip, 100_000, 300_000);
    await engine.tick();
    expect(engine.session(c.ip)).toMatchObject({ bytesUp: 100_000, bytesDown: 300_000 });
    expect(engine.bytesRemaining(engine.session(c.ip)!)).toBe(600_000);
    dataplane.addTraffic(c.ip, 0, 600_000);
    await engine.tick();
    expect(engine.session(c.ip)).toBeUndefined();
    expect(dataplane.clients.has(c.ip)).toBe(false);
    expect(engine.endedFor(c.ip)).toBe('quota');
    // The voucher's quota is used up: logging in again with it is refused as used up.
    expect(await engine.login(c, zone, { method: 'voucher', code: 'V1' })).toEqual({ ok: false, error: 'portal.error.quota' });
  });

  test('time limit and idle time-out end sessions', async () => {
    const { engine, clock, dataplane } = setup();
    await engine.start();
    await engine.login(client(1), zone, { method: 'onekey' });
    await engine.login(client(2), zone, { method: 'onekey' });
    clock.t += 590_000;
    dataplane.addTraffic(client(2).ip, 10, 10);
    await engine.tick();
    clock.t += 20_000;
    await engine.tick();
    expect(engine.endedFor(client(1).ip)).toBe('idle');
    expect(engine.session(client(2).ip)).toBeDefined();
    clock.t += 3_600_000;
    await engine.expireByTime();
    expect(engine.endedFor(client(2).ip)).toBe('expired');
  });

  test('usernum: the device over the account limit is refused with the online-user-limit error', async () => {
    const { engine } = setup();
    await engine.start();
    expect((await engine.login(client(1), zone, { method: 'local', username: 'alice', password: 'Secret123' })).ok).toBe(true);
    expect(await engine.login(client(2), zone, { method: 'local', username: 'alice', password: 'Secret123' })).toEqual({ ok: false, error: 'portal.error.onlineLimit' });
    // The same device logging in again is not a second device.
    expect((await engine.login(client(1), zone, { method: 'local', username: 'alice', password: 'Secret123' })).ok).toBe(true);
    expect((await engine.login(client(3), zone, { method: 'voucher', code: 'V2' })).ok).toBe(true);
    expect((await engine.login(client(4), zone, { method: 'voucher', code: 'V2' })).ok).toBe(true);
    expect((await engine.login(client(5), zone, { method: 'voucher', code: 'V2' })).ok).toBe(false);
  });

  test('guessing trips within 5 tries, per MAC and per IP', async () => {
    const { engine } = setup();
    await engine.start();
    const c = client(7);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push((await engine.login(c, zone, { method: 'voucher', code: `BAD${i}` })) as { ok: false; error: string });
    expect(answers.slice(0, 4).every((a) => a.error === 'portal.error.code')).toBe(true);
    expect(answers[5]!.error).toBe('portal.error.tooMany');
    // A right code does not get through while tripped, nor from a new MAC on the same IP.
    expect(await engine.login(c, zone, { method: 'voucher', code: 'V3' })).toEqual({ ok: false, error: 'portal.error.tooMany' });
    expect(await engine.login({ ip: c.ip, mac: '02:aa:00:00:00:01' }, zone, { method: 'password', password: 'Shared123' })).toEqual({ ok: false, error: 'portal.error.tooMany' });
    expect(await engine.login({ ip: '10.9.9.9', mac: c.mac }, zone, { method: 'local', username: 'alice', password: 'Secret123' })).toEqual({ ok: false, error: 'portal.error.tooMany' });
  });

  test('sessions, usage and blocks survive a restart; the data plane holds exactly them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-hotspot-'));
    dirs.push(dir);
    const file = join(dir, 'hotspot-state.json');
    const clock = { t: 1_700_000_000_000 };
    const first = setup(file, clock);
    await first.engine.start();
    await first.engine.login(client(1), zone, { method: 'voucher', code: 'V4' });
    await first.engine.login(client(2), zone, { method: 'onekey' });
    await first.engine.block('02:00:00:00:00:09');
    first.dataplane.addTraffic(client(1).ip, 200_000, 0);
    await first.engine.stop();

    // The kernel still holds the old clients plus one that was never authorised.
    const second = setup(file, clock);
    for (const entry of first.dataplane.clients.values()) second.dataplane.clients.set(entry.ip, { ...entry });
    second.dataplane.clients.set('10.1.0.99', { mac: '02:66:00:00:00:01', ip: '10.1.0.99', timeoutSeconds: null, upKbps: 0, downKbps: 0, bytesUp: 0, bytesDown: 0 });
    await second.engine.start();
    expect(second.engine.list().map((s) => s.ip).sort()).toEqual([client(1).ip, client(2).ip].sort());
    expect([...second.dataplane.clients.keys()].sort()).toEqual([client(1).ip, client(2).ip].sort());
    expect(second.engine.session(client(1).ip)!.bytesUp).toBe(200_000);
    expect(second.dataplane.blocked.has('02:00:00:00:00:09')).toBe(true);
    // Counters already read before the restart are not counted twice.
    await second.engine.tick();
    expect(second.engine.session(client(1).ip)!.bytesUp).toBe(200_000);
    // A returning device is re-bound by its voucher: usage continues where it stopped.
    await second.engine.kick(client(1).ip);
    const again = await second.engine.login(client(3), zone, { method: 'voucher', code: 'V4' });
    expect(again.ok && second.engine.bytesRemaining(again.session)).toBe(800_000);
  });

  test('RFC 8908 JSON: captive before login, remaining time and bytes after', async () => {
    const { engine } = setup();
    await engine.start();
    const c = client(11);
    expect(captiveJson(engine, c.ip, 'http://10.1.0.1:2050/auth/portal')).toEqual({ captive: true, 'user-portal-url': 'http://10.1.0.1:2050/auth/portal', 'can-extend-session': true });
    await engine.login(c, zone, { method: 'voucher', code: 'V5' });
    const json = captiveJson(engine, c.ip, 'http://10.1.0.1:2050/auth/portal');
    expect(json).toMatchObject({ captive: false, 'seconds-remaining': 86_400, 'bytes-remaining': 1_000_000 });
  });

  test('kick-off, speed limit and black-list take effect at once', async () => {
    const { engine, dataplane } = setup();
    await engine.start();
    const c = client(12);
    await engine.login(c, zone, { method: 'onekey' });
    expect(await engine.rateLimit(c.ip, 512, 1024)).toBe(true);
    expect(dataplane.clients.get(c.ip)).toMatchObject({ upKbps: 512, downKbps: 1024 });
    await engine.block(c.mac);
    expect(dataplane.clients.has(c.ip)).toBe(false);
    expect(dataplane.blocked.has(c.mac)).toBe(true);
    expect(await engine.login(c, zone, { method: 'onekey' })).toEqual({ ok: false, error: 'portal.error.blocked' });
  });
});

describe('neighbour lookup', () => {
  test('reads complete entries of /proc/net/arp and skips incomplete ones', async () => {
    const { macFromProcArp } = await import('../src/domains/hotspot/hotspot-neighbours.js');
    const text = [
      'IP address       HW type     Flags       HW address            Mask     Device',
      '192.168.11.20    0x1         0x2         02:AA:bb:cc:dd:01     *        br-lan',
      '192.168.11.21    0x1         0x0         00:00:00:00:00:00     *        br-lan',
      '192.168.11.2     0x1         0x2         02:aa:bb:cc:dd:02     *        br-lan',
    ].join('\n');
    expect(macFromProcArp(text, '192.168.11.20')).toBe('02:aa:bb:cc:dd:01');
    expect(macFromProcArp(text, '192.168.11.21')).toBeNull();
    expect(macFromProcArp(text, '192.168.11.2')).toBe('02:aa:bb:cc:dd:02');
    expect(macFromProcArp(text, '192.168.11.200')).toBeNull();
  });
});
