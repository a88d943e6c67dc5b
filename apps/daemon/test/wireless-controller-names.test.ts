import { connect } from 'node:tls';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { adminClient, CONDITION_WAIT, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { wirelessServiceOf } from '../src/domains/wireless/wireless-module.js';
import type { WirelessService } from '../src/domains/wireless/wireless-service.js';

/**
 * The controller's server certificate follows the gateway's addresses: an address gained after
 * the listener opened (a LAN network added for the APs) is named by a certificate issued when a
 * device next connects, so an AP dialling that address gets in without a restart.
 */

let h: Harness;
let admin: Client;
let service: WirelessService;
let port: number;
let names = ['localhost'];

beforeAll(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
  service = wirelessServiceOf(h.app.appContext)!;
  port = await service.listenDevices({ port: 0, host: '127.0.0.1', names, currentNames: () => names });
});
afterAll(async () => {
  await h.close();
});

/** A device's TLS handshake to 127.0.0.1, checking the controller's name as the agent does. */
async function handshake(bundle: { key: string; certificate: string; ca: string }): Promise<'ok' | string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, key: bundle.key, cert: bundle.certificate, ca: bundle.ca, minVersion: 'TLSv1.2' });
    socket.once('secureConnect', () => {
      socket.destroy();
      resolve('ok');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

test('an address the gateway gains later is named by a re-issued certificate at a device’s next connection', async () => {
  const answer = json(await post(h.app, admin, '/api/ac/devicecert', { serial: '02aabb0000a1' }));
  expect(answer.success).toBe(true);
  // The certificate names only localhost: a device dialling 127.0.0.1 refuses it.
  expect(await handshake(answer.data)).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  await service.serverCertificateRefresh;
  expect(await handshake(answer.data)).toBe('ERR_TLS_CERT_ALTNAME_INVALID');

  // The gateway gains the address; within the check's pace a connection has it re-issued.
  names = ['localhost', '127.0.0.1'];
  h.clock.advance(3);
  expect(await handshake(answer.data)).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  await vi.waitFor(async () => {
    await service.serverCertificateRefresh;
    expect(await handshake(answer.data)).toBe('ok');
  }, CONDITION_WAIT);
});
