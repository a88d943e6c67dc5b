import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ipv4ToInt } from '@portico/schema';
import { clientZone, type ZoneRange } from '../src/domains/hotspot/hotspot-client-zone.js';
import type { HotspotZone } from '../src/domains/hotspot/hotspot-types.js';
import { get, json, post } from './daemon-harness.js';
import { fromClient, portalLogin, startHotspotDaemon, type HotspotDaemon } from './hotspot-fixture.js';

function zone(name: string, network: string, gateway: string): ZoneRange {
  const first = ipv4ToInt(network);
  return { zone: { name } as HotspotZone, gateway, first, last: first + 255 };
}

const guests = zone('guests', '192.168.11.0', '192.168.11.1');
const staff = zone('staff', '192.168.12.0', '192.168.12.1');

describe('which zone a client belongs to', () => {
  test('a client is in the zone whose LAN range holds its address', () => {
    expect(clientZone([guests, staff], '192.168.12.40', 'linux')?.zone.name).toBe('staff');
    expect(clientZone([guests, staff], '192.168.11.40', 'sim')).toMatchObject({ gateway: '192.168.11.1' });
    expect(clientZone([guests, staff], '10.0.0.9', 'sim')).toBeNull();
    expect(clientZone([guests], 'not-an-address', 'sim')).toBeNull();
    expect(clientZone([guests], 'fe80::1', 'sim')).toBeNull();
  });

  test('on sim only, a loopback client stands in the first zone and reaches the portal on loopback', () => {
    for (const ip of ['127.0.0.1', '127.1.2.3']) {
      expect(clientZone([guests, staff], ip, 'sim')).toEqual({ zone: guests.zone, gateway: '127.0.0.1' });
      expect(clientZone([guests, staff], ip, 'linux')).toBeNull();
      expect(clientZone([guests, staff], ip, 'openwrt')).toBeNull();
    }
    // With no zone there is nothing to stand in.
    expect(clientZone([], '127.0.0.1', 'sim')).toBeNull();
  });
});

describe('a loopback client of the sim daemon', () => {
  let d: HotspotDaemon;
  beforeAll(async () => {
    d = await startHotspotDaemon();
  });
  afterAll(() => d.h.close());

  test('sees the first zone, signs in, and is listed as online under its loopback address', async () => {
    const state = json(await d.portal.inject({ method: 'GET', url: '/portal-api/state', remoteAddress: '127.0.0.1', headers: { host: '127.0.0.1:2050' } }));
    expect(state).toMatchObject({ success: true, data: { authorized: false, zone: { methods: ['voucher', 'local', 'password'] } } });
    expect((await portalLogin(d.portal, '127.0.0.1', { method: 'password', password: 'Shared2025' })).success).toBe(true);
    expect(d.h.app.hotspot.engine.list()).toEqual([expect.objectContaining({ ip: '127.0.0.1', zone: 'guests' })]);
    // The redirect of a foreign site points at the portal where this client can reach it.
    const captive = await d.portal.inject({ method: 'GET', url: '/captive', remoteAddress: '127.0.0.1', headers: { host: '127.0.0.1:2050' } });
    expect(captive.body).toContain('"user-portal-url":"http://127.0.0.1:2050/auth/portal"');
  });

  test('a zone saved or deleted counts from the very next portal request', async () => {
    const state = async () => json(await d.portal.inject({ method: 'GET', url: '/portal-api/state', ...fromClient('192.168.11.30') }));
    const zones = json(await get(d.h.app, d.admin, '/api/auth/zone')).data.items as Array<{ id: string }>;
    expect(json(await post(d.h.app, d.admin, '/api/auth/zone', { action: 'delete', ids: zones.map((z) => z.id) })).success).toBe(true);
    expect(await state()).toEqual({ success: false, msg: 'portal.error.notConfigured' });
    const zone = { action: 'add', name: 'hall', ifname: 'lan', authmodel: 'webportal', authtime: 1, authtime_unit: 'days' };
    expect(json(await post(d.h.app, d.admin, '/api/auth/zone', zone)).success).toBe(true);
    expect((await state()).success).toBe(true);
  });
});
