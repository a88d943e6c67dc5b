import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { HotspotEngine, type CredentialResult, type HotspotCredentials, type OutsideAuthenticator } from '../src/domains/hotspot/hotspot-engine.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import type { HotspotConfig, HotspotSession, HotspotZone } from '../src/domains/hotspot/hotspot-types.js';

/**
 * The engine's extension points for sign-in outside the device (RADIUS, LDAP), with a stand-in
 * authenticator: the zone's auth model picks it, the session carries the model as its kind, the
 * grant's limits count for the session alone, observers see every start and end.
 */
const base: HotspotZone = {
  name: 'staff', interfaces: ['lan'], welcome: '', contact: '', copyright: '', logintext: '', chargetext: '', tos: '',
  methods: ['local'], password: '', redirectUrl: '', sessionSeconds: 3600, idleSeconds: 600, plan: '',
};
const ldapZone: HotspotZone = { ...base, authModel: 'ldap' };
const localZone: HotspotZone = { ...base, name: 'guests', authModel: 'webportal' };
const config: HotspotConfig = { zones: [ldapZone, localZone], plans: [], whiteList: [], blackList: [], accountingSeconds: 10 };
const localUsers: HotspotCredentials = {
  verifyLocalUser: async (username) => (username === 'local-bob' ? { ok: true, grant: { account: 'local-bob', expiresAt: null, flowBytes: null, usernum: 0, upKbps: 0, downKbps: 0 } } : { ok: false, error: 'portal.error.userOrPassword' }),
  redeemVoucher: async () => ({ ok: false, error: 'portal.error.code' }),
};

function setup(outside: Partial<Record<'radius' | 'ldap', OutsideAuthenticator>> = {}, stateFile?: string, start = Date.UTC(2026, 0, 10, 12)) {
  let now = start;
  const dataplane = new SimDataplane();
  const events: string[] = [];
  const engine = new HotspotEngine({
    dataplane,
    config: () => config,
    credentials: localUsers,
    now: () => now,
    ...(stateFile ? { stateFile } : {}),
    outside,
    observers: [{ started: (s: HotspotSession) => events.push(`start ${s.kind} ${s.account}`), ended: (s, reason) => events.push(`end ${s.account} ${reason}`) }],
  });
  return { engine, dataplane, events, advance: (s: number) => (now += s * 1000), now: () => now };
}

const grant = (over: Partial<Extract<CredentialResult, { ok: true }>['grant']> = {}): CredentialResult => ({
  ok: true,
  grant: { account: 'carol', expiresAt: null, flowBytes: 1000, usernum: 0, upKbps: 256, downKbps: 1024, idleSeconds: 60, sessionLimits: true, outside: { dn: 'uid=carol' }, ...over },
});

describe('outside authenticators', () => {
  test('a zone whose model has an authenticator sends its username-and-password logins there', async () => {
    const seen: string[] = [];
    const ldap: OutsideAuthenticator = {
      async authenticate({ username, password, client, zone }) {
        seen.push(`${username}/${password}/${client.ip}/${zone.name}`);
        return username === 'carol' && password === 'right' ? grant() : { ok: false, error: 'portal.error.userOrPassword' };
      },
    };
    const { engine, dataplane, events } = setup({ ldap });
    const client = { mac: '02:00:00:00:00:21', ip: '192.168.11.21' };
    expect(await engine.login(client, ldapZone, { method: 'local', username: 'carol', password: 'wrong' })).toEqual({ ok: false, error: 'portal.error.userOrPassword' });
    const ok = await engine.login(client, ldapZone, { method: 'local', username: 'carol', password: 'right' });
    expect(ok.ok && ok.session).toMatchObject({ kind: 'ldap', account: 'ldap:carol', idleSeconds: 60, upKbps: 256, flowLimit: 1000, outside: { dn: 'uid=carol' } });
    expect(dataplane.clients.get(client.ip)).toMatchObject({ upKbps: 256, downKbps: 1024 });
    expect(seen).toEqual(['carol/wrong/192.168.11.21/staff', 'carol/right/192.168.11.21/staff']);
    // A web-portal zone keeps the device's own accounts.
    expect((await engine.login({ mac: '02:00:00:00:00:22', ip: '192.168.11.22' }, localZone, { method: 'local', username: 'local-bob', password: 'x' })).ok).toBe(true);
    expect(seen).toHaveLength(2);
    expect(events).toEqual(['start ldap ldap:carol', 'start local local:local-bob']);
    await engine.kick(client.ip);
    expect(events.at(-1)).toBe('end ldap:carol kicked');
  });

  test('limits count for the session alone: usage of an earlier login is not carried over', async () => {
    const { engine, dataplane } = setup({ ldap: { authenticate: async () => grant() } });
    const client = { mac: '02:00:00:00:00:23', ip: '192.168.11.23' };
    await engine.login(client, ldapZone, { method: 'local', username: 'carol', password: 'p' });
    dataplane.addTraffic(client.ip, 400, 0);
    await engine.tick();
    await engine.kick(client.ip, 'logout');
    const again = await engine.login(client, ldapZone, { method: 'local', username: 'carol', password: 'p' });
    expect(again.ok && engine.bytesRemaining(again.session)).toBe(1000);
  });

  test("the model's own form (LDAP's) goes to the same authenticator, a guess reserved before it runs, the zone's grant at hand", async () => {
    const ldapForm: HotspotZone = { ...ldapZone, methods: ['ldap'] };
    let calls = 0;
    const ldap: OutsideAuthenticator = {
      async authenticate({ username, password, zoneGrant }) {
        calls += 1;
        return password === 'right' ? { ok: true, grant: { ...zoneGrant(), account: username } } : { ok: false, error: 'portal.error.password' };
      },
    };
    const { engine, now } = setup({ ldap });
    const client = { mac: '02:00:00:00:00:27', ip: '192.168.11.27' };
    const ok = await engine.login(client, ldapForm, { method: 'ldap', username: 'dave', password: 'right' });
    expect(ok.ok && ok.session).toMatchObject({ kind: 'ldap', account: 'ldap:dave', expiresAt: now() + 3600 * 1000 });
    // A parallel burst of wrong passwords reaches the authenticator only as often as the limit allows.
    const other = { mac: '02:00:00:00:00:28', ip: '192.168.11.28' };
    const burst = await Promise.all(Array.from({ length: 12 }, () => engine.login(other, ldapForm, { method: 'ldap', username: 'dave', password: 'wrong' })));
    const errors = burst.map((r) => (r.ok ? 'ok' : r.error));
    expect(errors).toContain('portal.error.tooMany');
    expect(calls - 1).toBe(errors.filter((e) => e === 'portal.error.password').length);
    expect(calls - 1).toBeLessThan(12);
    // A web-portal zone does not take the LDAP form.
    expect(await engine.login({ mac: '02:00:00:00:00:29', ip: '192.168.11.29' }, { ...localZone, methods: ['ldap'] }, { method: 'ldap', username: 'dave', password: 'right' })).toEqual({ ok: false, error: 'portal.error.system' });
    expect(calls).toBe(1 + errors.filter((e) => e === 'portal.error.password').length);
  });

  test('no authenticator for the model: not configured; an authenticator that throws: system error', async () => {
    const client = { mac: '02:00:00:00:00:24', ip: '192.168.11.24' };
    expect(await setup().engine.login(client, ldapZone, { method: 'local', username: 'carol', password: 'p' })).toEqual({ ok: false, error: 'portal.error.notConfigured' });
    const broken = setup({ ldap: { authenticate: async () => Promise.reject(new Error('down')) } });
    expect(await broken.engine.login(client, ldapZone, { method: 'local', username: 'carol', password: 'p' })).toEqual({ ok: false, error: 'portal.error.system' });
  });

  test('a session that ended while the daemon was down is reported ended when it starts again', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'portico-outside-')), 'state.json');
    const before = setup({ ldap: { authenticate: async () => grant({ expiresAt: Date.UTC(2026, 0, 10, 13) }) } }, file);
    await before.engine.login({ mac: '02:00:00:00:00:26', ip: '192.168.11.26' }, ldapZone, { method: 'local', username: 'carol', password: 'p' });
    await before.engine.stop();
    const after = setup({}, file, Date.UTC(2026, 0, 10, 14));
    await after.engine.start();
    expect(after.engine.session('192.168.11.26')).toBeUndefined();
    expect(after.events).toEqual(['end ldap:carol expired']);
    rmSync(dirname(file), { recursive: true, force: true });
  });

  test('a change of limits on a live session reaches the data plane and can end it', async () => {
    const { engine, dataplane, events } = setup({ ldap: { authenticate: async () => grant() } });
    const client = { mac: '02:00:00:00:00:25', ip: '192.168.11.25' };
    await engine.login(client, ldapZone, { method: 'local', username: 'carol', password: 'p' });
    expect(await engine.adjust(client.ip, { downKbps: 8000, sessionSeconds: 120 })).toBe(true);
    expect(dataplane.clients.get(client.ip)).toMatchObject({ downKbps: 8000, timeoutSeconds: 120 });
    dataplane.addTraffic(client.ip, 10, 10);
    await engine.tick();
    expect(await engine.adjust(client.ip, { totalBytes: 5 })).toBe(true);
    expect(engine.session(client.ip)).toBeUndefined();
    expect(events.at(-1)).toBe('end ldap:carol quota');
    expect(await engine.adjust(client.ip, { upKbps: 1 })).toBe(false);
  });
});
