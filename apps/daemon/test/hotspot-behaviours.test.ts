import { describe, expect, test } from 'vitest';
import { hotspotPortal, hotspotZone, writeSchema, type AnyEntity } from '@portico/schema';
import { HotspotEngine, type CredentialResult, type HotspotCredentials } from '../src/domains/hotspot/hotspot-engine.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { hotspotConfigOf } from '../src/domains/hotspot/hotspot-config.js';
import { renderReminderBatch, SimReminderRedirect } from '../src/domains/hotspot/hotspot-reminder.js';
import type { HotspotConfig, HotspotZone, ReminderSettings } from '../src/domains/hotspot/hotspot-types.js';
import type { ConfigSnapshot } from '../src/config/config-types.js';

/** Zone idle time-outs and expiry reminders, on the sim data plane with a fake clock. */

const MINUTE = 60_000;
const MB = 1_000_000;

function zoneRow(id: string, input: Record<string, unknown>) {
  const parsed = writeSchema(hotspotZone as unknown as AnyEntity, 'add').safeParse(input);
  if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues));
  return { id, data: { ...(parsed.data as object), id } as Record<string, unknown> };
}

function snapshotWithZone(zone: Record<string, unknown>): ConfigSnapshot {
  return {
    hotspotZone: [zoneRow('z1', { name: 'guests', ifname: 'lan', authmodel: 'webportal', authtime: 1, authtime_unit: 'days', ...zone })],
    hotspotPortal: [{ id: '', data: { ...(hotspotPortal.schema.parse({ methods: ['onekey'] }) as object) } }],
  };
}

const noCredentials: HotspotCredentials = {
  async redeemVoucher(): Promise<CredentialResult> {
    return { ok: false, error: 'portal.error.code' };
  },
  async verifyLocalUser(): Promise<CredentialResult> {
    return { ok: false, error: 'portal.error.userOrPassword' };
  },
};

const guest = { ip: '192.168.11.50', mac: '02:00:00:00:00:50' };

describe('zone idle time', () => {
  test('the zone entity carries an idle time in minutes, 15 unless set, 0 to 1440', () => {
    expect(zoneRow('z', { name: 'a', ifname: 'lan' }).data.idletime).toBe(15);
    const tooLong = writeSchema(hotspotZone as unknown as AnyEntity, 'add').safeParse({ name: 'a', ifname: 'lan', idletime: 1441 });
    expect(tooLong.success).toBe(false);
    expect(tooLong.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['idletime', 'validation.limit.range']]);
    expect(hotspotConfigOf(snapshotWithZone({ idletime: 5 })).zones[0]!.idleSeconds).toBe(300);
  });

  test("a session without traffic for the zone's idle time ends; traffic keeps it", async () => {
    const config = hotspotConfigOf(snapshotWithZone({ idletime: 5 }));
    const zone = config.zones[0]!;
    const clock = { t: 1_700_000_000_000 };
    const dataplane = new SimDataplane();
    const engine = new HotspotEngine({ dataplane, config: () => config, credentials: noCredentials, now: () => clock.t });
    await engine.start();
    expect((await engine.login(guest, zone, { method: 'onekey' })).ok).toBe(true);

    clock.t += 4 * MINUTE;
    dataplane.addTraffic(guest.ip, 500, 1500);
    await engine.tick();
    clock.t += 4 * MINUTE;
    await engine.tick();
    // Four minutes since the last traffic: still online.
    expect(engine.session(guest.ip)).toBeDefined();
    clock.t += 1 * MINUTE;
    await engine.tick();
    expect(engine.session(guest.ip)).toBeUndefined();
    expect(engine.endedFor(guest.ip)).toBe('idle');
    expect(dataplane.clients.has(guest.ip)).toBe(false);
  });

  test('an idle time of 0 never ends a session for lack of traffic', async () => {
    const config = hotspotConfigOf(snapshotWithZone({ idletime: 0 }));
    const clock = { t: 1_700_000_000_000 };
    const engine = new HotspotEngine({ dataplane: new SimDataplane(), config: () => config, credentials: noCredentials, now: () => clock.t });
    await engine.start();
    expect((await engine.login(guest, config.zones[0]!, { method: 'onekey' })).ok).toBe(true);
    clock.t += 600 * MINUTE;
    await engine.tick();
    expect(engine.session(guest.ip)).toBeDefined();
  });
});

describe('expiry reminder', () => {
  const zone: HotspotZone = {
    name: 'guests', interfaces: ['lan'], welcome: '', contact: '', copyright: '', logintext: '', chargetext: '', tos: '',
    methods: ['voucher', 'onekey'], password: '', redirectUrl: '', sessionSeconds: 0, idleSeconds: 0, plan: '',
  };
  const reminder: ReminderSettings = {
    enabled: true, sms: false, refresh: true, url: '', intervalSeconds: 3600, port: 80, content: 'Renew soon', template: 'default',
    accountThresholds: { seconds: 86_400, bytes: 10 * MB },
  };
  /** `day` reminds at 30 minutes or 2 MB left; `quiet` never reminds. */
  const baseConfig: HotspotConfig = {
    zones: [zone],
    plans: [
      { name: 'day', flowBytes: 10 * MB, seconds: 86_400, upKbps: 0, downKbps: 0, remind: { seconds: 1800, bytes: 2 * MB } },
      { name: 'quiet', flowBytes: 10 * MB, seconds: 86_400, upKbps: 0, downKbps: 0, remind: null },
    ],
    whiteList: [],
    blackList: [],
    accountingSeconds: 10,
    reminder,
  };
  /** Codes D1..D9 are for `day`, Q1..Q9 for `quiet`. */
  const vouchers: HotspotCredentials = {
    async redeemVoucher(code): Promise<CredentialResult> {
      const plan = code.startsWith('D') ? 'day' : code.startsWith('Q') ? 'quiet' : undefined;
      if (!plan) return { ok: false, error: 'portal.error.code' };
      return { ok: true, grant: { account: code, plan, expiresAt: null, flowBytes: null, usernum: 1, upKbps: 0, downKbps: 0 } };
    },
    verifyLocalUser: noCredentials.verifyLocalUser,
  };

  function setup(config: { current: HotspotConfig } = { current: baseConfig }) {
    const clock = { t: 1_700_000_000_000 };
    const dataplane = new SimDataplane();
    const redirect = new SimReminderRedirect();
    const engine = new HotspotEngine({ dataplane, config: () => config.current, credentials: vouchers, now: () => clock.t, reminders: redirect });
    return { clock, dataplane, redirect, engine, config };
  }

  test('a client within its plan thresholds is reminded once per interval, and shown it once', async () => {
    const { clock, dataplane, redirect, engine } = setup();
    await engine.start();
    const other = { ip: '192.168.11.51', mac: '02:00:00:00:00:51' };
    expect((await engine.login(guest, zone, { method: 'voucher', code: 'D1' })).ok).toBe(true);
    expect((await engine.login(other, zone, { method: 'voucher', code: 'Q1' })).ok).toBe(true);
    await engine.tick();
    expect(redirect.addresses.size).toBe(0);

    // 8.5 MB used of 10: within the 2 MB threshold of `day`; `quiet` has no reminder.
    dataplane.addTraffic(guest.ip, 500_000, 8 * MB);
    dataplane.addTraffic(other.ip, 500_000, 8 * MB);
    await engine.tick();
    expect([...redirect.addresses]).toEqual([guest.ip]);
    expect(engine.reminderFor(guest.ip)).toMatchObject({ ip: guest.ip, username: 'D1', state: 'awaiting' });
    expect(engine.reminderFor(other.ip)).toBeUndefined();
    expect(engine.reminderList().map((e) => [e.ip, e.username, e.state])).toEqual([[guest.ip, 'D1', 'awaiting']]);

    await engine.reminderShown(guest.ip);
    expect(redirect.addresses.size).toBe(0);
    expect(engine.reminderFor(guest.ip)).toBeUndefined();
    expect(engine.reminderList()[0]).toMatchObject({ state: 'shown' });

    // Within the interval the client is not reminded again, even with traffic.
    clock.t += 30 * MINUTE;
    dataplane.addTraffic(guest.ip, 10_000, 10_000);
    await engine.tick();
    expect(redirect.addresses.size).toBe(0);
    // Once the interval has passed, it is.
    clock.t += 31 * MINUTE;
    dataplane.addTraffic(guest.ip, 10_000, 10_000);
    await engine.tick();
    expect([...redirect.addresses]).toEqual([guest.ip]);
    expect(engine.reminderList()).toHaveLength(1);
    expect(engine.reminderList()[0]).toMatchObject({ state: 'awaiting' });
  });

  test('time near the end reminds; logins without an account are never reminded', async () => {
    const { clock, dataplane, redirect, engine } = setup();
    await engine.start();
    const oneKey = { ip: '192.168.11.52', mac: '02:00:00:00:00:52' };
    expect((await engine.login(guest, zone, { method: 'voucher', code: 'D2' })).ok).toBe(true);
    expect((await engine.login(oneKey, zone, { method: 'onekey' })).ok).toBe(true);
    clock.t += (86_400 - 1700) * 1000;
    dataplane.addTraffic(guest.ip, 1, 1);
    dataplane.addTraffic(oneKey.ip, 1, 1);
    await engine.tick();
    expect([...redirect.addresses]).toEqual([guest.ip]);
  });

  test('switching reminders off, or the client going offline, withdraws an awaited reminder', async () => {
    const holder = { current: baseConfig };
    const { dataplane, redirect, engine } = setup(holder);
    await engine.start();
    expect((await engine.login(guest, zone, { method: 'voucher', code: 'D3' })).ok).toBe(true);
    dataplane.addTraffic(guest.ip, 0, 9 * MB);
    await engine.tick();
    expect(redirect.addresses.has(guest.ip)).toBe(true);
    holder.current = { ...baseConfig, reminder: { ...reminder, enabled: false } };
    await engine.tick();
    expect(redirect.addresses.size).toBe(0);
    expect(engine.reminderFor(guest.ip)).toBeUndefined();

    holder.current = baseConfig;
    await engine.tick();
    expect(redirect.addresses.has(guest.ip)).toBe(true);
    await engine.kick(guest.ip);
    await new Promise((r) => setImmediate(r));
    expect(redirect.addresses.size).toBe(0);
    expect(engine.reminderList()[0]).toMatchObject({ state: 'withdrawn' });
  });

  test('the reminder set is changed by element, with a hold time the kernel enforces', () => {
    expect(renderReminderBatch(['192.168.11.50', '192.168.11.51'], ['192.168.11.9'])).toBe(
      'delete element inet portico hs_remind { 192.168.11.9 }\n' +
        'add element inet portico hs_remind { 192.168.11.50 timeout 3600s, 192.168.11.51 timeout 3600s }\n',
    );
    expect(renderReminderBatch([], [])).toBe('');
    expect(() => renderReminderBatch(['192.168.11.50 } ; flush ruleset'], [])).toThrow();
  });
});
