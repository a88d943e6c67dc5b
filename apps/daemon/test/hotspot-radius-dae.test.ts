import { createSocket, type Socket } from 'node:dgram';
import radius from 'radius';
import { afterEach, expect, test } from 'vitest';
import { hotspotRadius } from '@portico/schema';
import { DaeServer } from '../src/domains/hotspot/radius/radius-dae.js';
import type { HotspotSession } from '../src/domains/hotspot/hotspot-types.js';

const SECRET = 'Dae-secret-1';
const settings = hotspotRadius.schema.parse({ enabled: true, radiusip: '127.0.0.1', sharekey: SECRET, nasid: 'gw' });
const session = { ip: '192.168.11.20', mac: '02:00:00:00:00:20', kind: 'radius', outside: { user: 'dora', sid: 'S1' } } as unknown as HotspotSession;

let server: DaeServer | undefined;
let client: Socket | undefined;
afterEach(async () => {
  await server?.close();
  client?.close();
});

test('a retransmission that arrives while the request is acted on is not acted on twice; both get the one answer', async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let disconnects = 0;
  server = new DaeServer({
    settings: () => settings,
    sessions: () => [session],
    disconnect: async () => {
      disconnects++;
      await held;
      return true;
    },
    adjust: async () => true,
    report: (error) => {
      throw error;
    },
  });
  await server.listen({ host: '127.0.0.1', port: 0 });
  const sock = createSocket('udp4');
  client = sock;
  await new Promise<void>((resolve) => sock.bind(0, '127.0.0.1', resolve));
  const answers: string[] = [];
  sock.on('message', (m) => answers.push(radius.decode({ packet: m, secret: SECRET }).code));
  const request = radius.encode({ code: 'Disconnect-Request', secret: SECRET, identifier: 7, attributes: [['User-Name', 'dora']] });
  const send = () => new Promise<void>((resolve) => sock.send(request, server!.port(), '127.0.0.1', () => resolve()));
  await send();
  await until(() => disconnects === 1);
  await send();
  // The retransmission has been read (the socket is served in order) before the first is let go.
  await new Promise((r) => setTimeout(r, 0));
  release();
  await until(() => answers.length >= 1);
  await send();
  await until(() => answers.length >= 2);
  expect(disconnects).toBe(1);
  expect(answers).toEqual(['Disconnect-ACK', 'Disconnect-ACK']);
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}
