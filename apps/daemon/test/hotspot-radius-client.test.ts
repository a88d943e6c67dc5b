import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, test } from 'vitest';
import radius from 'radius';
import { RadiusTransport } from '../src/domains/hotspot/radius/radius-client.js';

/**
 * The RADIUS transport against a loopback server written here: forged answers are ignored,
 * requests to one port stay within the window, a closed transport sends nothing.
 */
const SECRET = 'Client-Test-Secret';
const servers: Socket[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A server that holds each request until `release()`, then answers Access-Accept. */
async function holdingServer(options: { forgeFirst?: boolean } = {}) {
  const socket = createSocket('udp4');
  servers.push(socket);
  const held: Array<() => void> = [];
  let peak = 0;
  let received = 0;
  socket.on('message', (message, peer) => {
    received++;
    const packet = radius.decode({ packet: message, secret: SECRET });
    const answer = (secret: string) => socket.send(radius.encode_response({ packet, code: 'Access-Accept', secret, attributes: [['Session-Timeout', 60]] }), peer.port, peer.address);
    held.push(() => {
      // A forged answer (wrong secret) first: it must not be taken for the server's.
      if (options.forgeFirst) answer('Not-The-Secret');
      answer(SECRET);
    });
    peak = Math.max(peak, held.length);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    held: () => held.length,
    peak: () => peak,
    received: () => received,
    release: () => held.splice(0).forEach((f) => f()),
  };
}

describe('RADIUS transport', () => {
  test('a forged answer is ignored and the real one taken', async () => {
    const server = await holdingServer({ forgeFirst: true });
    const transport = new RadiusTransport({ secret: SECRET, timeoutMs: 5000, retries: 0 });
    const pending = transport.send([{ host: '127.0.0.1', port: server.port }], 'Access-Request', [['User-Name', 'a'], ['User-Password', 'b']], true);
    await expect.poll(() => server.held()).toBe(1);
    server.release();
    const outcome = await pending;
    expect(outcome).toMatchObject({ ok: true, code: 'Access-Accept' });
    // The answer's Message-Authenticator (the request had one) was verified along with it.
    expect(outcome.ok && outcome.raw.map(([type]) => type)).toEqual([27, 80]);
    transport.close();
  });

  test('at most `window` requests are in flight to one port; the rest wait their turn', async () => {
    const server = await holdingServer();
    const transport = new RadiusTransport({ secret: SECRET, timeoutMs: 10_000, retries: 0, window: 8 });
    const all = Promise.all(Array.from({ length: 30 }, (_, i) => transport.send([{ host: '127.0.0.1', port: server.port }], 'Access-Request', [['User-Name', `u${i}`], ['User-Password', 'p']])));
    // Answer what has arrived, round after round, until all 30 were answered.
    while (server.received() < 30 || server.held() > 0) {
      await expect.poll(() => server.held()).toBeGreaterThan(0);
      server.release();
    }
    const outcomes = await all;
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(server.peak()).toBeLessThanOrEqual(8);
    transport.close();
  });

  test('a closed transport answers unreachable without sending', async () => {
    const server = await holdingServer();
    const transport = new RadiusTransport({ secret: SECRET, timeoutMs: 1000, retries: 0 });
    transport.close();
    expect(await transport.send([{ host: '127.0.0.1', port: server.port }], 'Access-Request', [['User-Name', 'a'], ['User-Password', 'b']])).toEqual({ ok: false, error: 'unreachable' });
    expect(server.received()).toBe(0);
  });
});

describe('the disconnect port', () => {
  test('a port another program holds is reported once, then tried again only after a while', async () => {
    const { DaeServer } = await import('../src/domains/hotspot/radius/radius-dae.js');
    const holder = createSocket('udp4');
    servers.push(holder);
    await new Promise<void>((resolve) => holder.bind(0, '127.0.0.1', resolve));
    const reports: unknown[] = [];
    const dae = new DaeServer({ settings: () => { throw new Error('not used'); }, sessions: () => [], disconnect: async () => false, adjust: async () => false, report: (e) => reports.push(e) });
    const where = { host: '127.0.0.1', port: holder.address().port };
    await expect(dae.listen(where)).rejects.toThrow(/EADDRINUSE/);
    // The next calls (the service's reconcile, every second) do not try again at once.
    await dae.listen(where);
    await dae.listen(where);
    expect(dae.port()).toBe(0);
    // Another port is tried at once and opens.
    await dae.listen({ host: '127.0.0.1', port: 0 });
    await dae.close();
    expect(reports).toEqual([]);
  });
});
