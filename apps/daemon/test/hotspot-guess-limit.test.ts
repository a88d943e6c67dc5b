import { afterEach, describe, expect, test } from 'vitest';
import { HotspotEngine, type CredentialResult, type HotspotCredentials, type LoginRequest } from '../src/domains/hotspot/hotspot-engine.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import type { HotspotConfig, HotspotZone } from '../src/domains/hotspot/hotspot-types.js';
import { LoginLimiter, PORTAL_GUESS_POLICY } from '../src/plugins/login-limiter.js';
import { MIGRATIONS, migrate, openDatabase } from '../src/plugins/db-open.js';
import Database from 'better-sqlite3';
import { CountingHasher, json, post, tempDir, type Harness } from './daemon-harness.js';
import { fromClient, portalLogin, startHotspotDaemon } from './hotspot-fixture.js';

/**
 * The portal's guessing limit (vouchers, access password, local accounts, self-service): each
 * try is reserved before its secret is checked, so a parallel burst checks at most five, and
 * the limit lives in the daemon's database.
 */

/** Resolves once `condition` holds, checking after each turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

/** A gate the checks of secrets wait at, so that a whole burst is in flight at once. */
class Gate {
  private opened!: () => void;
  readonly passed = new Promise<void>((resolve) => (this.opened = resolve));
  open(): void {
    this.opened();
  }
}

describe('engine: a parallel burst checks at most five secrets per client', () => {
  const zone: HotspotZone = {
    name: 'guests', interfaces: ['lan'], welcome: '', contact: '', copyright: '', logintext: '', chargetext: '', tos: '',
    methods: ['voucher', 'local', 'password'], password: 'Shared123', redirectUrl: '', sessionSeconds: 3600, idleSeconds: 0, plan: '',
  };
  const config: HotspotConfig = { zones: [zone], plans: [], whiteList: [], blackList: [], accountingSeconds: 10 };
  const grant = { expiresAt: null, flowBytes: null, usernum: 0, upKbps: 0, downKbps: 0 };

  /** Voucher RIGHT1 and account alice / Secret123; every check waits at the gate. */
  function gatedCredentials(gate: Gate) {
    const checked: string[] = [];
    const credentials: HotspotCredentials = {
      async redeemVoucher(code): Promise<CredentialResult> {
        checked.push(code);
        await gate.passed;
        return code === 'RIGHT1' ? { ok: true, grant: { ...grant, account: code } } : { ok: false, error: 'portal.error.code' };
      },
      async verifyLocalUser(username, password): Promise<CredentialResult> {
        checked.push(password);
        await gate.passed;
        return password === 'Secret123' ? { ok: true, grant: { ...grant, account: username } } : { ok: false, error: 'portal.error.userOrPassword' };
      },
    };
    return { credentials, checked };
  }

  const bursts: Array<[string, (i: number) => LoginRequest, LoginRequest, string]> = [
    ['voucher', (i) => ({ method: 'voucher', code: `WRONG${i}` }), { method: 'voucher', code: 'RIGHT1' }, 'portal.error.code'],
    ['local account', (i) => ({ method: 'local', username: 'alice', password: `Wrong${i}` }), { method: 'local', username: 'alice', password: 'Secret123' }, 'portal.error.userOrPassword'],
  ];
  test.each(bursts)('%s: 30 wrong tries with the right one among them', async (_name, wrongTry, rightTry, wrongError) => {
    const gate = new Gate();
    const { credentials, checked } = gatedCredentials(gate);
    const engine = new HotspotEngine({ dataplane: new SimDataplane(), config: () => config, credentials, now: () => 1_700_000_000_000 });
    await engine.start();
    const device = { ip: '10.1.0.9', mac: '02:00:00:00:00:09' };
    const tries = Array.from({ length: 30 }, (_, i) => (i === 12 ? rightTry : wrongTry(i)));
    const outcomes = Promise.all(tries.map((request) => engine.login(device, zone, request)));
    await until(() => checked.length >= 5);
    gate.open();
    const answers = await outcomes;
    expect(checked.length).toBe(5);
    expect(answers.filter((a) => a.ok)).toEqual([]);
    expect(answers.filter((a) => !a.ok && a.error === wrongError)).toHaveLength(5);
    expect(answers[12]).toEqual({ ok: false, error: 'portal.error.tooMany' });
    // Locked for real: the right secret alone is refused without being checked.
    expect(await engine.login(device, zone, rightTry)).toEqual({ ok: false, error: 'portal.error.tooMany' });
    expect(checked.length).toBe(5);
  });

  test('the access password: the same limit, counted per MAC and per address', async () => {
    const engine = new HotspotEngine({ dataplane: new SimDataplane(), config: () => config, credentials: gatedCredentials(new Gate()).credentials, now: () => 1_700_000_000_000 });
    await engine.start();
    const device = { ip: '10.1.0.9', mac: '02:00:00:00:00:09' };
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => engine.login(device, zone, { method: 'password', password: i === 10 ? 'Shared123' : `Nope${i}` })));
    expect(answers.filter((a) => a.ok)).toEqual([]);
    expect(answers.filter((a) => !a.ok && a.error === 'portal.error.password')).toHaveLength(5);
    // A new MAC on the same address, or the same MAC on a new address, is still refused.
    expect(await engine.login({ ip: device.ip, mac: '02:aa:00:00:00:01' }, zone, { method: 'password', password: 'Shared123' })).toEqual({ ok: false, error: 'portal.error.tooMany' });
    expect(await engine.login({ ip: '10.1.0.99', mac: device.mac }, zone, { method: 'password', password: 'Shared123' })).toEqual({ ok: false, error: 'portal.error.tooMany' });
  });

  test('the window and the lock run out on the clock', async () => {
    const clock = { t: 1_700_000_000_000 };
    const limiter = new LoginLimiter(openDatabase(':memory:'), () => clock.t, PORTAL_GUESS_POLICY);
    const keys = ['mac:02:00:00:00:00:01', 'ip:10.1.0.1'];
    const fail = () => {
      const reservation = limiter.reserve(keys);
      if (!reservation.ok) return reservation.retryAfter;
      return reservation.release('failure');
    };
    for (let i = 0; i < 4; i++) expect(fail()).toBe(0);
    // Four failures five minutes old no longer count.
    clock.t += 300_000;
    for (let i = 0; i < 4; i++) expect(fail()).toBe(0);
    expect(fail()).toBe(300);
    clock.t += 299_000;
    expect(limiter.reserve(keys)).toEqual({ ok: false, retryAfter: 1 });
    clock.t += 1000;
    expect(limiter.reserve(keys).ok).toBe(true);
  });
});

/** Real scrypt, whose verifications wait at a gate once it is closed. */
class GatedHasher extends CountingHasher {
  gate: Gate | null = null;
  started = 0;
  override async verify(password: string, stored: string): Promise<boolean> {
    this.started++;
    if (this.gate) await this.gate.passed;
    return super.verify(password, stored);
  }
}

describe('daemon: local-account passwords on the portal and in self-service', () => {
  const daemons: Harness[] = [];
  afterEach(async () => {
    for (const h of daemons.splice(0)) await h.close();
  });

  async function withAlice(options: Parameters<typeof startHotspotDaemon>[0] = {}) {
    const hotspot = await startHotspotDaemon(options);
    daemons.push(hotspot.h);
    const user = { action: 'add', username: 'alice', password: 'Secret123', confirm: 'Secret123', usernum: 0 };
    expect(json(await post(hotspot.h.app, hotspot.admin, '/api/auth/userauth', user)).success).toBe(true);
    return hotspot;
  }

  const signIns: Array<[string, (password: string) => Record<string, unknown>]> = [
    ['/portal-api/login', (password) => ({ method: 'local', username: 'alice', password, acceptTerms: true })],
    ['/portal-api/user/login', (password) => ({ username: 'alice', password })],
  ];

  test.each(signIns)('%s: the right password sent while a burst of wrong ones is checked is refused', async (url, body) => {
    const hasher = new GatedHasher();
    const { h, portal } = await withAlice({ hasher });
    const ip = '192.168.11.40';
    hasher.gate = new Gate();
    hasher.started = 0;
    const before = hasher.verifications;
    const send = (password: string) => portal.inject({ method: 'POST', url, payload: body(password), ...fromClient(ip) }).then(json);
    const wrong = Promise.all(Array.from({ length: 30 }, (_, i) => send(`Wrong${i}x`)));
    await until(() => hasher.started >= 5);
    const right = send('Secret123');
    hasher.gate.open();
    const [answers, rightAnswer] = await Promise.all([wrong, right]);
    expect(rightAnswer).toEqual({ success: false, msg: 'portal.error.tooMany' });
    expect(answers.filter((a) => a.msg === 'portal.error.userOrPassword')).toHaveLength(5);
    expect(answers.filter((a) => a.msg === 'portal.error.tooMany')).toHaveLength(25);
    expect(hasher.verifications - before).toBe(5);
    // Both sign-ins share one limit: the client is locked on the other one too.
    expect(await portalLogin(portal, ip, { method: 'local', username: 'alice', password: 'Secret123' })).toEqual({ success: false, msg: 'portal.error.tooMany' });
    expect(h.app.hotspot.engine.session(ip)).toBeUndefined();
  });

  test('the lock survives a daemon restart on the same database', async () => {
    const stateDir = tempDir();
    const { h } = await withAlice({ stateDir });
    const ip = '192.168.11.41';
    for (let i = 0; i < 5; i++) {
      expect(await portalLogin(h.app.hotspot.portal, ip, { method: 'local', username: 'alice', password: `Wrong${i}x` })).toEqual({ success: false, msg: 'portal.error.userOrPassword' });
    }
    const restarted = await h.restart();
    daemons.push(restarted);
    const portal = restarted.app.hotspot.portal;
    const right = { method: 'local', username: 'alice', password: 'Secret123' };
    expect(await portalLogin(portal, ip, right)).toEqual({ success: false, msg: 'portal.error.tooMany' });
    const selfService = await portal.inject({ method: 'POST', url: '/portal-api/user/login', payload: { username: 'alice', password: 'Secret123' }, ...fromClient(ip) });
    expect(json(selfService)).toEqual({ success: false, msg: 'portal.error.tooMany' });
    restarted.clock.advance(300);
    expect((await portalLogin(portal, ip, right)).success).toBe(true);
  });
});

test('the migration carries the console sign-in locks over into the shared table', () => {
  const db = new Database(':memory:');
  const before = MIGRATIONS.findIndex((m) => m.name === 'guessing limits of every sign-in');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  MIGRATIONS.slice(0, before).forEach((migration, index) => {
    db.exec(migration.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(index + 1, migration.name);
  });
  db.prepare('INSERT INTO login_failures (key, count, locked_until) VALUES (?, ?, ?)').run('admin|10.0.0.1', 5, 1_700_000_300_000);
  migrate(db);
  const limiter = new LoginLimiter(db, () => 1_700_000_000_000);
  expect(limiter.reserve(LoginLimiter.key('admin', '10.0.0.1'))).toEqual({ ok: false, retryAfter: 300 });
  expect(limiter.reserve(LoginLimiter.key('admin', '10.0.0.2')).ok).toBe(true);
});
