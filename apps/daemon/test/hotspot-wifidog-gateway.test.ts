import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WifidogAuthClient } from '../src/domains/hotspot/wifidog/wifidog-client.js';
import { WifidogGateway, type WifidogClientAddress, type WifidogDataPlane, type WifidogGatewayOptions } from '../src/domains/hotspot/wifidog/wifidog-gateway.js';
import { FakeClock } from './fixtures/wireless/wireless-fake-clock.js';
import { WifidogTestServer } from './hotspot-wifidog-fixture.js';

const CHECK_MS = 60_000;
const KEEPALIVE_MS = 30_000;
const PHONE = { ip: '192.168.1.23', mac: 'AA:BB:CC:DD:EE:01' };
const LAPTOP = { ip: '192.168.1.24', mac: 'aa:bb:cc:dd:ee:02' };

/** The engine's side: which clients are open, and the byte counters it would read from the kernel. */
class FakeDataPlane implements WifidogDataPlane {
  readonly open = new Set<string>();
  readonly log: string[] = [];
  readonly bytes = new Map<string, { incoming: number; outgoing: number }>();

  async allow(client: WifidogClientAddress): Promise<void> {
    this.open.add(`${client.ip}/${client.mac}`);
    this.log.push(`allow ${client.ip}`);
  }

  async revoke(client: WifidogClientAddress): Promise<void> {
    this.open.delete(`${client.ip}/${client.mac}`);
    this.log.push(`revoke ${client.ip}`);
  }

  async counters(client: WifidogClientAddress): Promise<{ incoming: number; outgoing: number } | null> {
    return this.bytes.get(client.mac) ?? { incoming: 0, outgoing: 0 };
  }

  systemStats() {
    return { sysUptime: 1000, sysMemfree: 65536, sysLoad: 0.5 };
  }
}

let server: WifidogTestServer;
let clock: FakeClock;
let plane: FakeDataPlane;
let gateway: WifidogGateway | null;

beforeEach(async () => {
  server = new WifidogTestServer();
  await server.start();
  clock = new FakeClock();
  plane = new FakeDataPlane();
  gateway = null;
});

afterEach(async () => {
  gateway?.stop();
  await server.close();
});

/** Both loops (counters, heartbeat) have their next round pending: no round is in flight. */
async function roundsIdle(): Promise<void> {
  await vi.waitFor(() => expect(clock.pending()).toHaveLength(2));
}

function makeGateway(options: Partial<WifidogGatewayOptions> = {}): WifidogGateway {
  const config = server.config({ redirect_url: 'https://welcome.example.com/' });
  gateway = new WifidogGateway({
    config,
    gatewayId: 'gw1',
    client: new WifidogAuthClient({ config, gatewayId: 'gw1', timeoutMs: 20_000 }),
    dataPlane: plane,
    schedule: clock.schedule,
    now: clock.now,
    checkIntervalMs: CHECK_MS,
    keepaliveIntervalMs: KEEPALIVE_MS,
    admitWhileServerDown: false,
    ...options,
  });
  return gateway;
}

describe('wifidog gateway: login', () => {
  it('admits a client whose token the server allows and sends it to the welcome page', async () => {
    const gw = makeGateway();
    const token = server.issueToken(1);
    expect(await gw.arrive({ ...PHONE, token })).toEqual({ outcome: 'admitted', admission: 'allowed', redirect: 'https://welcome.example.com/' });
    expect(plane.open).toEqual(new Set(['192.168.1.23/aa:bb:cc:dd:ee:01']));
    expect(server.callsTo('login')[0]!.query).toMatchObject({ ip: PHONE.ip, mac: 'aa:bb:cc:dd:ee:01', token, gw_id: 'gw1' });
    expect(gw.admittedClients()).toMatchObject([{ mac: 'aa:bb:cc:dd:ee:01', token, admission: 'allowed', admittedAt: clock.now() }]);
    expect(gw.serverState).toBe('online');
  });

  it('refuses a denied or locked token with the server message page, and admits validation on probation', async () => {
    const gw = makeGateway();
    const denied = await gw.arrive({ ...PHONE, token: server.issueToken(0) });
    expect(denied).toMatchObject({ outcome: 'refused', code: 'denied' });
    expect(new URL((denied as { redirect: string }).redirect).searchParams.get('message')).toBe('denied');
    expect(await gw.arrive({ ...PHONE, token: server.issueToken(254) })).toMatchObject({ outcome: 'refused', code: 'locked' });
    expect(plane.open.size).toBe(0);
    const probation = await gw.arrive({ ...LAPTOP, token: server.issueToken(5) });
    expect(probation).toMatchObject({ outcome: 'admitted', admission: 'validation' });
    expect(new URL((probation as { redirect: string }).redirect).searchParams.get('message')).toBe('activate');
    expect(plane.open).toEqual(new Set(['192.168.1.24/aa:bb:cc:dd:ee:02']));
  });

  it('refuses malformed tokens and addresses before asking the server', async () => {
    const gw = makeGateway();
    expect(await gw.arrive({ ...PHONE, token: 'abc&stage=logout' })).toEqual({ outcome: 'invalid', field: 'token' });
    expect(await gw.arrive({ ...PHONE, token: '' })).toEqual({ outcome: 'invalid', field: 'token' });
    expect(await gw.arrive({ ...PHONE, token: 'x'.repeat(257) })).toEqual({ outcome: 'invalid', field: 'token' });
    expect(await gw.arrive({ ip: '192.168.1.23\n', mac: PHONE.mac, token: 'abc' })).toEqual({ outcome: 'invalid', field: 'ip' });
    expect(await gw.arrive({ ip: PHONE.ip, mac: 'aa:bb:cc:dd:ee', token: 'abc' })).toEqual({ outcome: 'invalid', field: 'mac' });
    expect(server.calls).toHaveLength(0);
  });

  it('never admits on a malformed answer, even when set to admit while the server is down', async () => {
    const gw = makeGateway({ admitWhileServerDown: true });
    server.override = () => ({ body: 'Auth: 1\nAuth: 1\n' });
    expect(await gw.arrive({ ...PHONE, token: 'abc' })).toEqual({ outcome: 'unavailable', problem: 'several Auth lines' });
    server.override = () => ({ body: 'Auth: -1\n' });
    expect(await gw.arrive({ ...PHONE, token: 'abc' })).toEqual({ outcome: 'unavailable', problem: 'Auth: -1' });
    expect(plane.open.size).toBe(0);
  });

  it('logs a client out at the server with its counters and closes its access', async () => {
    const gw = makeGateway();
    const token = server.issueToken(1);
    await gw.arrive({ ...PHONE, token });
    plane.bytes.set('aa:bb:cc:dd:ee:01', { incoming: 5000, outgoing: 700 });
    expect(await gw.logout('AA-BB-CC-DD-EE-01')).toBe(true);
    expect(plane.open.size).toBe(0);
    expect(server.callsTo('logout')[0]!.query).toMatchObject({ token, incoming: '5000', outgoing: '700' });
    expect(await gw.logout(PHONE.mac)).toBe(false);
  });
});

describe('wifidog gateway: counters and heartbeat on their timers', () => {
  it('reports each client every check interval and takes off a client the server answers Auth: 0 for', async () => {
    const gw = makeGateway();
    const phoneToken = server.issueToken(1);
    const laptopToken = server.issueToken(1);
    await gw.arrive({ ...PHONE, token: phoneToken });
    await gw.arrive({ ...LAPTOP, token: laptopToken });
    gw.start();
    plane.bytes.set('aa:bb:cc:dd:ee:01', { incoming: 1000, outgoing: 100 });
    plane.bytes.set('aa:bb:cc:dd:ee:02', { incoming: 2000, outgoing: 200 });

    await clock.advance(CHECK_MS);
    await vi.waitFor(() => expect(server.callsTo('counters')).toHaveLength(2));
    expect(server.callsTo('counters').map((c) => [c.query.mac, c.query.token, c.query.incoming, c.query.outgoing])).toEqual([
      ['aa:bb:cc:dd:ee:01', phoneToken, '1000', '100'],
      ['aa:bb:cc:dd:ee:02', laptopToken, '2000', '200'],
    ]);

    // The server ends the phone's session (time or quota used up on its side).
    server.tokens.set(phoneToken, 0);
    // The next round is scheduled once this one has ended.
    await roundsIdle();
    await clock.advance(CHECK_MS);
    await vi.waitFor(() => expect(plane.open).toEqual(new Set(['192.168.1.24/aa:bb:cc:dd:ee:02'])));
    expect(gw.admittedClients().map((c) => c.mac)).toEqual(['aa:bb:cc:dd:ee:02']);
    expect(plane.log).toContain('revoke 192.168.1.23');
  });

  it('upgrades a probation client when the server allows it, and logs out a client idle too long', async () => {
    const gw = makeGateway({ idleRoundsLimit: 2 });
    const token = server.issueToken(5);
    await gw.arrive({ ...PHONE, token });
    server.tokens.set(token, 1);
    plane.bytes.set('aa:bb:cc:dd:ee:01', { incoming: 10, outgoing: 10 });
    await gw.reportCounters();
    expect(gw.admittedClients()[0]).toMatchObject({ admission: 'allowed', idleRounds: 0, incoming: 10 });
    await gw.reportCounters();
    expect(gw.admittedClients()[0]).toMatchObject({ idleRounds: 1 });
    await gw.reportCounters();
    expect(gw.admittedClients()).toEqual([]);
    expect(plane.open.size).toBe(0);
    expect(server.callsTo('logout')).toHaveLength(1);
  });

  it('tracks the server going down and coming back with the heartbeat', async () => {
    const gw = makeGateway();
    expect(gw.serverState).toBe('unknown');
    gw.start();
    await clock.advance(0);
    await vi.waitFor(() => expect(gw.serverState).toBe('online'));
    expect(server.pings()[0]!.query).toEqual({ gw_id: 'gw1', sys_uptime: '1000', sys_memfree: '65536', sys_load: '0.50', wifidog_uptime: '0' });

    server.down = true;
    await roundsIdle();
    await clock.advance(KEEPALIVE_MS);
    await vi.waitFor(() => expect(gw.serverState).toBe('offline'));

    server.down = false;
    await roundsIdle();
    await clock.advance(KEEPALIVE_MS);
    await vi.waitFor(() => expect(gw.serverState).toBe('online'));
    expect(server.pings().at(-1)!.query.wifidog_uptime).toBe(String((2 * KEEPALIVE_MS) / 1000));

    gw.stop();
    expect(clock.pending()).toEqual([]);
  });

  it('refuses new clients while the server is down, or admits them when set to, to be checked later', async () => {
    const strict = makeGateway();
    server.down = true;
    expect(await strict.arrive({ ...PHONE, token: 'abc123' })).toEqual({ outcome: 'unavailable', problem: 'auth server unreachable' });
    expect(strict.serverState).toBe('offline');
    expect(plane.open.size).toBe(0);

    const lenient = makeGateway({ admitWhileServerDown: true });
    expect(await lenient.arrive({ ...PHONE, token: 'abc123' })).toMatchObject({ outcome: 'admitted', admission: 'offline' });
    expect(plane.open.size).toBe(1);
    // A counters round while the server is still down keeps the client in.
    await lenient.reportCounters();
    expect(plane.open.size).toBe(1);
    // Back up, the server does not know that token: the client is taken off.
    server.down = false;
    await lenient.reportCounters();
    expect(plane.open.size).toBe(0);
    expect(lenient.serverState).toBe('online');
  });
});
