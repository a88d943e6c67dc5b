import { describe, expect, test } from 'vitest';
import { HotspotEngine, type HotspotCredentials } from '../src/domains/hotspot/hotspot-engine.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { localUserGrant, voucherGrant } from '../src/domains/hotspot/hotspot-credentials.js';
import type { Grant, HotspotConfig, HotspotZone } from '../src/domains/hotspot/hotspot-types.js';
import type { LocalUser } from '../src/domains/hotspot-config/local-user-store.js';

const zone: HotspotZone = {
  name: 'guests', interfaces: ['lan'], welcome: '', contact: '', copyright: '', logintext: '', chargetext: '', tos: '',
  methods: ['voucher', 'local'], password: '', redirectUrl: '', sessionSeconds: 0, idleSeconds: 0, plan: '',
};
const config: HotspotConfig = {
  zones: [zone],
  plans: [{ name: 'month', flowBytes: 50_000_000, seconds: 30 * 86_400, upKbps: 1000, downKbps: 4000 }],
  whiteList: [],
  blackList: [],
  accountingSeconds: 10,
};
const refuse: HotspotCredentials = {
  verifyLocalUser: async () => ({ ok: false, error: 'portal.error.userOrPassword' }),
  redeemVoucher: async () => ({ ok: false, error: 'portal.error.code' }),
};
const NOW = Date.UTC(2026, 0, 10, 12);

const user = (over: Partial<LocalUser> = {}): LocalUser => ({
  id: 'u1', username: 'alice', type: 'portal', model: 'month', usernum: 2, totalflow: 0, upspeed: 0, downspeed: 0,
  duetime: '', status: 'normal', sms: false, tel: '', comment: '', ...over,
});

describe('what credentials grant', () => {
  test('a local user: own limits first, then the plan; expired, wrong-type accounts refused', () => {
    expect(localUserGrant(user(), NOW)).toEqual({
      ok: true,
      grant: { account: 'alice', plan: 'month', expiresAt: null, flowBytes: null, usernum: 2, upKbps: 0, downKbps: 0 },
    });
    const own = localUserGrant(user({ totalflow: 20, upspeed: 512, duetime: '2026-02-01' }), NOW);
    expect(own.ok && own.grant).toMatchObject({ flowBytes: 20_000_000, upKbps: 512, expiresAt: new Date(2026, 1, 2).getTime() });
    expect(localUserGrant(user({ duetime: '2026-01-01' }), NOW)).toEqual({ ok: false, error: 'portal.error.expired' });
    expect(localUserGrant(user({ status: 'expired' }), NOW)).toEqual({ ok: false, error: 'portal.error.expired' });
    expect(localUserGrant(user({ type: 'pppoe' }), NOW)).toEqual({ ok: false, error: 'portal.error.userOrPassword' });
  });

  test('a voucher: keyed by id, refusals mapped to the portal messages', () => {
    const voucher = { id: 'v-1', batchId: 'b', serial: 1, plan: 'month', usernum: 1, validitySeconds: 3600, firstUsed: NOW, expiresAt: NOW + 3_600_000, macs: [], status: 'inuse' as const };
    expect(voucherGrant({ ok: true, voucher, secondsRemaining: 3600 })).toMatchObject({ ok: true, grant: { account: 'v-1', plan: 'month', expiresAt: NOW + 3_600_000 } });
    expect(voucherGrant({ ok: false, reason: 'code' })).toEqual({ ok: false, error: 'portal.error.code' });
    expect(voucherGrant({ ok: false, reason: 'expired' })).toEqual({ ok: false, error: 'portal.error.expired' });
    expect(voucherGrant({ ok: false, reason: 'onlineLimit' })).toEqual({ ok: false, error: 'portal.error.onlineLimit' });
  });
});

describe('engine admissions', () => {
  const grant = (over: Partial<Grant> = {}): Grant => ({ kind: 'local', account: 'alice', plan: 'month', expiresAt: null, flowBytes: null, usernum: 0, upKbps: 0, downKbps: 0, ...over });
  const device = (n: number) => ({ ip: `10.2.0.${n + 2}`, mac: `02:00:00:00:02:${n.toString(16).padStart(2, '0')}` });

  test('admitAll authorises many clients in one data-plane transaction', async () => {
    const dataplane = new SimDataplane();
    const engine = new HotspotEngine({ dataplane, config: () => config, credentials: refuse, now: () => NOW });
    await engine.start();
    const before = dataplane.transactions;
    const outcomes = await engine.admitAll(Array.from({ length: 100 }, (_, n) => ({ client: device(n), zone, grant: grant({ account: `user${n}` }) })));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(dataplane.transactions - before).toBe(1);
    expect(dataplane.clients.size).toBe(100);
  });

  test('a plan counts from the first login; a due time or total from the account is taken as it is now', async () => {
    let now = NOW;
    const dataplane = new SimDataplane();
    const engine = new HotspotEngine({ dataplane, config: () => config, credentials: refuse, now: () => now });
    await engine.start();
    const first = await engine.admit(device(1), zone, grant());
    expect(first.ok && first.session.expiresAt).toBe(NOW + 30 * 86_400_000);
    dataplane.addTraffic(device(1).ip, 1_000_000, 4_000_000);
    await engine.tick();
    expect(engine.accountUsage('local', 'alice')).toEqual({ bytes: 5_000_000, expiresAt: NOW + 30 * 86_400_000, flowLimit: 50_000_000 });
    now += 60_000;
    // Signing in again continues the plan's window and traffic.
    const again = await engine.admit(device(1), zone, grant());
    expect(again.ok && again.session.expiresAt).toBe(NOW + 30 * 86_400_000);
    expect(again.ok && engine.bytesRemaining(again.session)).toBe(45_000_000);
    // The administrator set a due time and a smaller total on the account: they hold at once.
    const changed = await engine.admit(device(1), zone, grant({ expiresAt: now + 3_600_000, flowBytes: 6_000_000 }));
    expect(changed.ok && changed.session.expiresAt).toBe(now + 3_600_000);
    expect(changed.ok && engine.bytesRemaining(changed.session)).toBe(1_000_000);
    const over = await engine.admit(device(1), zone, grant({ flowBytes: 4_000_000 }));
    expect(over).toEqual({ ok: false, error: 'portal.error.quota' });
    expect(engine.sessionsOf('local', 'alice').map((s) => s.ip)).toEqual([device(1).ip]);
  });
});
