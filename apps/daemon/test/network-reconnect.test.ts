import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { ConfigApplier } from '../src/config/config-types.js';
import { addAccount, adminClient, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

let h: Harness;
let admin: Client;
const reconnected: string[] = [];

/** An applier standing in for a driver that runs WAN clients: it records what it is asked. */
const applier: ConfigApplier = {
  apply: async () => {},
  reconnect: async (wan) => {
    reconnected.push(wan);
    return wan !== 'wanppp';
  },
};

beforeEach(async () => {
  reconnected.length = 0;
  h = await startDaemon({ deps: { config: { applier } } });
  admin = await adminClient(h);
  const add = async (body: Record<string, unknown>) => {
    const reply = json(await post(h.app, admin, '/api/network', { action: 'add', ...body }));
    expect(reply.success, JSON.stringify(reply)).toBe(true);
    const confirmed = json(await post(h.app, null, '/api/sysconf/confirm', { token: reply.data.confirm.token }));
    expect(confirmed.success).toBe(true);
  };
  await add({ ifname: 'lan', role: 'lan', hwport: ['eth2'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' });
  await add({ ifname: 'wan', role: 'wan', hwport: ['eth0'], proto: 'dhcp' });
  await add({ ifname: 'wanppp', role: 'wan', hwport: ['eth1'], proto: 'pppoe', pppoe_username: 'isp-user', pppoe_password: 'isp-secret' });
  await add({ ifname: 'wanfix', role: 'wan', hwport: ['eth3'], proto: 'static', ipaddr: '203.0.113.2', netmask: '255.255.255.0', gateway: '203.0.113.1' });
});
afterEach(async () => {
  await h.close();
});

describe('network/reconnect', () => {
  test('a DHCP WAN is reconnected through the driver', async () => {
    expect(json(await post(h.app, admin, '/api/network/reconnect', { ifname: 'wan' }))).toEqual({ success: true, data: { ifname: 'wan' } });
    expect(reconnected).toEqual(['wan']);
  });

  test('a WAN the driver cannot run a client for, a static WAN, a LAN and an unknown name are refused with their message', async () => {
    expect(json(await post(h.app, admin, '/api/network/reconnect', { ifname: 'wanppp' }))).toEqual({ success: false, msg: 'msg.reconnectUnavailable' });
    expect(json(await post(h.app, admin, '/api/network/reconnect', { ifname: 'wanfix' }))).toEqual({ success: false, msg: 'msg.reconnectStatic' });
    for (const ifname of ['lan', 'nope']) {
      expect(json(await post(h.app, admin, '/api/network/reconnect', { ifname }))).toEqual({
        success: false,
        msg: 'msg.reviewFields',
        errors: { ifname: 'validation.network.wanOnly' },
      });
    }
    expect(json(await post(h.app, admin, '/api/network/reconnect', {}))).toMatchObject({ success: false, errors: { ifname: 'validation.required' } });
    expect(reconnected).toEqual(['wanppp']);
  });

  test('a visitor may not reconnect, and neither may a request without the CSRF token', async () => {
    const guest = await addAccount(h, admin, 'visitor', 2);
    const visitor = await login(h.app, 'visitor', guest.password);
    expect(json(await post(h.app, visitor, '/api/network/reconnect', { ifname: 'wan' })).success).toBe(false);
    expect(json(await post(h.app, { ...admin, csrf: 'wrong' }, '/api/network/reconnect', { ifname: 'wan' })).success).toBe(false);
    expect(reconnected).toEqual([]);
  });
});
