import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseWifidogAuthAnswer, WifidogAuthClient, type WifidogClientOptions } from '../src/domains/hotspot/wifidog/wifidog-client.js';
import { WifidogTestServer, type RawAnswer } from './hotspot-wifidog-fixture.js';

const CLIENT = { ip: '192.168.1.23', mac: 'aa:bb:cc:dd:ee:01', incoming: 0, outgoing: 0 };
const STATS = { sysUptime: 3600, sysMemfree: 20480, sysLoad: 0.25, wifidogUptime: 120 };

let server: WifidogTestServer;

beforeEach(async () => {
  server = new WifidogTestServer();
  await server.start();
});

afterEach(async () => {
  await server.close();
});

function client(options: Partial<WifidogClientOptions> = {}): WifidogAuthClient {
  return new WifidogAuthClient({ config: server.config(), gatewayId: 'gw1', timeoutMs: 20_000, ...options });
}

describe('wifidog auth calls', () => {
  it('asks stage=login with the client, its token and the gateway id, and reads the code', async () => {
    const allowed = server.issueToken(1);
    const denied = server.issueToken(0);
    const wd = client();
    expect(await wd.login({ ...CLIENT, token: allowed })).toEqual({ code: 'allowed' });
    expect(await wd.login({ ...CLIENT, token: denied })).toEqual({ code: 'denied' });
    expect(await wd.login({ ...CLIENT, token: 'never-issued' })).toEqual({ code: 'denied' });
    const [first] = server.callsTo('login');
    expect(first!.path).toBe('/wifidog/auth/');
    expect(first!.names).toEqual(['stage', 'ip', 'mac', 'token', 'incoming', 'outgoing', 'gw_id']);
    expect(first!.query).toEqual({ stage: 'login', ip: CLIENT.ip, mac: CLIENT.mac, token: allowed, incoming: '0', outgoing: '0', gw_id: 'gw1' });
  });

  it('reports counters and logs out with the same parameters', async () => {
    const token = server.issueToken(5);
    const wd = client();
    expect(await wd.counters({ ...CLIENT, token, incoming: 123456789012, outgoing: 42 })).toEqual({ code: 'validation' });
    expect(await wd.logout({ ...CLIENT, token, incoming: 2, outgoing: 1 })).toEqual({ code: 'denied' });
    expect(server.callsTo('counters')[0]!.query).toMatchObject({ incoming: '123456789012', outgoing: '42', token });
    expect(server.callsTo('logout')[0]!.query).toMatchObject({ incoming: '2', outgoing: '1', token });
    // Negative or fractional counters from a broken source are sent as 0, not as text.
    await wd.counters({ ...CLIENT, token, incoming: -5, outgoing: 1.5 });
    expect(server.callsTo('counters')[1]!.query).toMatchObject({ incoming: '0', outgoing: '0' });
  });

  it('sends the heartbeat and reads Pong', async () => {
    const wd = client();
    expect(await wd.ping(STATS)).toEqual({ online: true });
    const [ping] = server.pings();
    expect(ping!.path).toBe('/wifidog/ping/');
    expect(ping!.names).toEqual(['gw_id', 'sys_uptime', 'sys_memfree', 'sys_load', 'wifidog_uptime']);
    expect(ping!.query).toEqual({ gw_id: 'gw1', sys_uptime: '3600', sys_memfree: '20480', sys_load: '0.25', wifidog_uptime: '120' });
    server.override = () => ({ body: 'Ping' });
    expect(await wd.ping(STATS)).toEqual({ online: false, problem: 'no Pong' });
    server.down = true;
    expect(await wd.ping(STATS)).toEqual({ online: false, problem: 'auth server unreachable' });
  });
});

describe('wifidog answers are hostile', () => {
  it('accepts only one Auth line with a documented code', () => {
    expect(parseWifidogAuthAnswer('Auth: 1')).toEqual({ code: 'allowed' });
    expect(parseWifidogAuthAnswer('Auth: 6\r\nMessages: late\r\n')).toEqual({ code: 'validationFailed' });
    expect(parseWifidogAuthAnswer('Auth: 254')).toEqual({ code: 'locked' });
    expect(parseWifidogAuthAnswer('Auth: -1')).toEqual({ code: 'error' });
    for (const body of ['', 'OK', 'Auth: 2', 'Auth: 01', 'Auth: 1abc', 'Auth: 1 1', 'Auth:', 'auth: 1', 'Auth: 1\nAuth: 1', 'Auth: 1\nAuth: 0', 'X-Auth: 1']) {
      expect(parseWifidogAuthAnswer(body).code, JSON.stringify(body)).toBe('error');
    }
  });

  it('turns oversize, binary, redirected and failed answers into errors, never a grant', async () => {
    const wd = client({ maxAnswerBytes: 1024 });
    const token = server.issueToken(1);
    const large = `Auth: 1\n${'x'.repeat(4096)}`;
    const cases: Array<[string, RawAnswer, string]> = [
      ['declared too large', { headers: { 'content-length': String(large.length) }, body: large }, 'answer too large'],
      ['streamed too large', { headers: { 'transfer-encoding': 'chunked' }, body: large }, 'answer too large'],
      ['not UTF-8', { body: Buffer.from([0x41, 0x75, 0x74, 0x68, 0x3a, 0x20, 0x31, 0x0a, 0xff, 0xfe]) }, 'answer is not UTF-8 text'],
      ['garbage', { body: '<html><body>Welcome!</body></html>' }, 'no Auth line'],
      ['missing Auth line', { body: 'Messages: all good\n' }, 'no Auth line'],
      ['unknown code', { body: 'Auth: 3\n' }, 'unknown Auth value'],
      ['redirect', { status: 302, headers: { location: 'http://127.0.0.1:1/' }, body: 'Auth: 1\n' }, 'HTTP 302'],
      ['server error', { status: 500, body: 'Auth: 1\n' }, 'HTTP 500'],
    ];
    for (const [name, answer, problem] of cases) {
      server.override = () => answer;
      expect(await wd.login({ ...CLIENT, token }), name).toEqual({ code: 'error', problem });
    }
    server.override = () => ({ body: `Pong\n${'x'.repeat(4096)}` });
    expect(await wd.ping(STATS)).toEqual({ online: false, problem: 'answer too large' });
  });

  it('gives up on a server that does not answer when the time runs out', async () => {
    const timeout = new AbortController();
    const wd = client({ timeoutSignal: () => timeout.signal });
    server.hang = true;
    const answer = wd.login({ ...CLIENT, token: server.issueToken(1) });
    // The server has the call and is sitting on it: now the time runs out.
    await vi.waitFor(() => expect(server.callsTo('login')).toHaveLength(1));
    timeout.abort(new DOMException('timed out', 'TimeoutError'));
    expect(await answer).toEqual({ code: 'error', problem: 'no answer in time', unreachable: true });
  });

  it('calls a server that is down unreachable', async () => {
    server.down = true;
    expect(await client().login({ ...CLIENT, token: 'abc' })).toEqual({ code: 'error', problem: 'auth server unreachable', unreachable: true });
  });
});
