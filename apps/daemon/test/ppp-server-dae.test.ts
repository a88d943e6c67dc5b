import { createSocket, type Socket } from 'node:dgram';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import radius from 'radius';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotRadius, l2tpServer, pppoeServer } from '@portico/schema';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import { DaeServer } from '../src/domains/hotspot/radius/radius-dae.js';
import { pppDaeSessions } from '../src/domains/ppp-server/ppp-server-dae.js';

/**
 * RADIUS's Disconnect-Requests (RFC 5176) on the hotspot's dynamic authorisation port end the
 * PPP servers' sessions RADIUS vouched for: a fake kernel tree holds the sessions' pppd, the
 * requests are real packets signed with the shared secret.
 */
const SECRET = 'Dae-secret-2';
const settings = hotspotRadius.schema.parse({ enabled: true, dae: true, radiusip: '127.0.0.1', sharekey: SECRET, nasid: 'gw' });

const root = mkdtempSync(join(tmpdir(), 'ppp-dae-'));
const records = join(root, 'run/portico/ppp-server');
function session(ifname: string, pid: number, kind: string, username: string, address: string, from: string): void {
  writeFileSync(join(records, `${ifname}.json`), JSON.stringify({ kind, ifname, username, from, address, pid, at: pid }));
  mkdirSync(join(root, 'sys/class/net', ifname), { recursive: true });
  writeFileSync(join(root, 'sys/class/net', ifname, 'ifindex'), '7\n');
  mkdirSync(join(root, 'proc', String(pid)), { recursive: true });
  writeFileSync(join(root, 'proc', String(pid), 'comm'), 'pppd\n');
}

let snapshot: ConfigSnapshot = {};
const killed: number[] = [];
const source = pppDaeSessions({ root, kernel: root }, (pid) => killed.push(pid));
let server: DaeServer;
let client: Socket;
const answers: Array<{ code: string; cause?: string }> = [];

beforeAll(async () => {
  mkdirSync(records, { recursive: true });
  session('ppp0', 200, 'pppoe', 'radonly1', '10.0.40.10', '02:00:00:00:00:31');
  session('ppp1', 201, 'pppoe', 'radonly2', '10.0.40.11', '02:00:00:00:00:32');
  session('ppp2', 202, 'l2tp', 'localuser', '10.0.30.10', '10.90.0.2');
  server = new DaeServer({
    settings: () => settings,
    sessions: () => [],
    disconnect: async () => false,
    adjust: async () => false,
    others: () => source.sessions(snapshot),
    report: (error) => {
      throw error;
    },
  });
  await server.listen({ host: '127.0.0.1', port: 0 });
  client = createSocket('udp4');
  await new Promise<void>((resolve) => client.bind(0, '127.0.0.1', resolve));
  client.on('message', (m) => {
    const decoded = radius.decode({ packet: m, secret: SECRET });
    answers.push({ code: decoded.code, cause: decoded.attributes['Error-Cause'] as string | undefined });
  });
});
afterAll(async () => {
  await server.close();
  client.close();
  rmSync(root, { recursive: true, force: true });
});

let identifier = 0;
async function ask(code: 'Disconnect-Request' | 'CoA-Request', attributes: Array<[string, string | number]>): Promise<{ code: string; cause?: string }> {
  const before = answers.length;
  const packet = radius.encode({ code, secret: SECRET, identifier: ++identifier, attributes });
  await new Promise<void>((resolve) => client.send(packet, server.port(), '127.0.0.1', () => resolve()));
  while (answers.length === before) await new Promise((r) => setTimeout(r, 5));
  return answers.at(-1)!;
}

const radiusServers: ConfigSnapshot = {
  [pppoeServer.name]: [{ id: '', data: { enabled: true, interfaces: ['lan'], authway: 'radius' } }],
  [l2tpServer.name]: [{ id: '', data: { enabled: true, interfaces: ['lan'], authway: 'local' } }],
};

describe('Disconnect-Requests for the PPP servers\' sessions', () => {
  test('a server on RADIUS: a request naming a session by user, address or calling station ends its pppd', async () => {
    snapshot = radiusServers;
    expect(await ask('Disconnect-Request', [['User-Name', 'radonly1']])).toEqual({ code: 'Disconnect-ACK', cause: undefined });
    expect(killed.splice(0)).toEqual([200]);
    expect(await ask('Disconnect-Request', [['Framed-IP-Address', '10.0.40.11'], ['Calling-Station-Id', '02-00-00-00-00-32']])).toMatchObject({ code: 'Disconnect-ACK' });
    expect(killed.splice(0)).toEqual([201]);
  });

  test('every attribute given must match; an Acct-Session-Id never names a PPP session', async () => {
    snapshot = radiusServers;
    expect(await ask('Disconnect-Request', [['User-Name', 'radonly1'], ['Framed-IP-Address', '10.0.40.11']])).toEqual({ code: 'Disconnect-NAK', cause: 'Session-Context-Not-Found' });
    expect(await ask('Disconnect-Request', [['User-Name', 'radonly1'], ['Acct-Session-Id', 'ABC']])).toEqual({ code: 'Disconnect-NAK', cause: 'Session-Context-Not-Found' });
    expect(killed).toEqual([]);
  });

  test('sessions of local accounts, or of a server that is off, are not RADIUS\'s to end', async () => {
    snapshot = radiusServers;
    expect(await ask('Disconnect-Request', [['User-Name', 'localuser']])).toMatchObject({ code: 'Disconnect-NAK', cause: 'Session-Context-Not-Found' });
    snapshot = { [pppoeServer.name]: [{ id: '', data: { enabled: false, interfaces: ['lan'], authway: 'radius' } }] };
    expect(await ask('Disconnect-Request', [['User-Name', 'radonly1']])).toMatchObject({ code: 'Disconnect-NAK', cause: 'Session-Context-Not-Found' });
    expect(killed).toEqual([]);
  });

  test('a CoA cannot change a PPP session: refused as an unsupported service', async () => {
    snapshot = radiusServers;
    expect(await ask('CoA-Request', [['User-Name', 'radonly1'], ['Session-Timeout', 600]])).toEqual({ code: 'CoA-NAK', cause: 'Unsupported-Service' });
    expect(killed).toEqual([]);
  });
});
