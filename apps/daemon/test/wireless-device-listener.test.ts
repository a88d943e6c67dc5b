import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import WebSocket from 'ws';
import type { UcentralLink } from '@portico/schema';
import { buildTlsTerm } from '../tlsterm-build.mjs';
import { startDeviceListener, tlsTerminatorPath, type DeviceListener, type DeviceRefusal } from '../src/domains/wireless/wireless-device-listener.js';
import { WirelessDevicePki, type IssuedCertificate } from '../src/domains/wireless/controller/wireless-device-pki.js';
import { runCommand } from '../src/engine/command-runner.js';
import { CONDITION_WAIT, tempDir } from './daemon-harness.js';

/**
 * The device listener on loopback with each TLS terminator: portico-tlsterm (the C helper) and
 * Node's own TLS. Both must let in exactly the devices of the device CA, bind each link to the
 * serial its certificate proves, and carry messages of any size intact.
 */

const SERIAL = '04aa00000001';
const REVOKED = '04aa00000002';
const files = tempDir('wireless-listener-');
let pki: WirelessDevicePki;
let foreign: WirelessDevicePki;
let ca: string;
let device: IssuedCertificate;
let revokedDevice: IssuedCertificate;
let foreignDevice: IssuedCertificate;

beforeAll(async () => {
  pki = new WirelessDevicePki(join(files, 'pki'), runCommand);
  foreign = new WirelessDevicePki(join(files, 'foreign'), runCommand);
  ca = (await pki.ensureAuthority()).toString();
  await foreign.ensureAuthority();
  await pki.issueServer(['127.0.0.1']);
  device = await pki.issueDevice(SERIAL);
  revokedDevice = await pki.issueDevice(REVOKED);
  foreignDevice = await foreign.issueDevice(SERIAL);
  // The helper as the build makes it (gcc and OpenSSL's headers are on the test machines).
  await buildTlsTerm();
});

function dial(port: number, cert: IssuedCertificate | null): WebSocket {
  const ws = new WebSocket(`wss://127.0.0.1:${port}/`, 'ucentral-broker', {
    ...(cert ? { cert: cert.certificate, key: cert.key } : {}),
    ca,
    perMessageDeflate: false,
  });
  ws.on('error', () => undefined);
  return ws;
}

const opened = (ws: WebSocket) =>
  new Promise<boolean>((resolve) => {
    ws.once('open', () => resolve(true));
    ws.once('close', () => resolve(false));
  });
const closedWith = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

for (const terminator of ['portico-tlsterm', 'node'] as const) {
  describe(`the device listener, TLS terminated by ${terminator}`, () => {
    let listener: DeviceListener;
    const links: UcentralLink[] = [];
    const refusals: DeviceRefusal[] = [];
    const errors: unknown[] = [];
    let accepted = 0;

    beforeAll(async () => {
      const path = terminator === 'node' ? null : tlsTerminatorPath();
      expect(terminator === 'node' || path !== null).toBe(true);
      listener = await startDeviceListener({
        port: 0,
        host: '127.0.0.1',
        key: readFileSync(pki.serverKeyFile),
        cert: readFileSync(pki.serverCertFile),
        ca,
        isRevoked: (serial) => serial === REVOKED,
        onLink: (link) => links.push(link),
        onRefused: (_address, reason) => refusals.push(reason),
        onConnection: () => accepted++,
        onError: (error) => errors.push(error),
        tlsTerminator: path,
      });
      expect(listener.terminatorPid === undefined).toBe(terminator === 'node');
    });
    afterAll(() => listener.close());

    test('a device of the device CA gets a link bound to its certificate serial; messages of any size pass both ways', async () => {
      const ws = dial(listener.port, device);
      expect(await opened(ws)).toBe(true);
      await vi.waitFor(() => expect(links).toHaveLength(1), CONDITION_WAIT);
      const link = links[0]!;
      expect(link.peerSerial).toBe(SERIAL);
      expect(link.remoteAddress).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(link.localAddress).toBe('127.0.0.1');
      expect(accepted).toBeGreaterThanOrEqual(1);
      expect(listener.connections).toBe(1);

      const received: string[] = [];
      link.onMessage((text) => received.push(text));
      // Larger than a TLS record and than one read of the terminator: split and joined again.
      const big = `{"text":"${'ü'.repeat(100_000)}"}`;
      ws.send('{"small":1}');
      ws.send(big);
      await vi.waitFor(() => expect(received).toHaveLength(2), CONDITION_WAIT);
      expect(received[0]).toBe('{"small":1}');
      expect(received[1]).toBe(big);

      const back = new Promise<string>((resolve) => ws.once('message', (data: Buffer) => resolve(data.toString('utf8'))));
      link.send(big);
      expect(await back).toBe(big);

      const code = closedWith(ws);
      link.close(4000, 'bye');
      expect(await code).toBe(4000);
      await vi.waitFor(() => expect(listener.connections).toBe(0), CONDITION_WAIT);
    });

    test('binary and oversize frames close the link', async () => {
      const binary = dial(listener.port, device);
      expect(await opened(binary)).toBe(true);
      const binaryClosed = closedWith(binary);
      binary.send(Buffer.from('{}'));
      expect(await binaryClosed).toBe(1002);

      const oversize = dial(listener.port, device);
      expect(await opened(oversize)).toBe(true);
      const oversizeClosed = closedWith(oversize);
      oversize.send('x'.repeat(300 * 1024));
      expect(await oversizeClosed).toBe(1009);
    });

    test('no certificate, another CA, a revoked serial: no link', async () => {
      const before = links.length;
      expect(await opened(dial(listener.port, null))).toBe(false);
      expect(await opened(dial(listener.port, foreignDevice))).toBe(false);
      expect(await opened(dial(listener.port, revokedDevice))).toBe(false);
      await vi.waitFor(() => expect(refusals).toContain('revoked'), CONDITION_WAIT);
      expect(links.length).toBe(before);
    });

    test('anything but a WebSocket upgrade gets 426', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: listener.port, path: '/', ca, cert: device.certificate, key: device.key }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(426);
    });

    test('a new server certificate serves the connections after it', async () => {
      const served = async () => {
        const ws = dial(listener.port, device);
        const certificate = await new Promise<string>((resolve) =>
          ws.once('upgrade', (response) => resolve((response.socket as TLSSocket).getPeerCertificate().serialNumber)),
        );
        ws.close();
        return certificate;
      };
      const first = await served();
      await pki.issueServer(['127.0.0.1', 'localhost']);
      listener.setCertificate(readFileSync(pki.serverKeyFile), readFileSync(pki.serverCertFile));
      await vi.waitFor(async () => expect(await served()).not.toBe(first), CONDITION_WAIT);
      expect(errors).toEqual([]);
    });
  });
}

describe('the device listener when portico-tlsterm ends', () => {
  test('its links close, the end is reported, and a new terminator takes the port', async () => {
    const errors: unknown[] = [];
    const links: UcentralLink[] = [];
    const listener = await startDeviceListener({
      port: 0,
      host: '127.0.0.1',
      key: readFileSync(pki.serverKeyFile),
      cert: readFileSync(pki.serverCertFile),
      ca,
      isRevoked: () => false,
      onLink: (link) => links.push(link),
      onError: (error) => errors.push(error),
      tlsTerminator: tlsTerminatorPath(),
    });
    try {
      const ws = dial(listener.port, device);
      expect(await opened(ws)).toBe(true);
      await vi.waitFor(() => expect(links).toHaveLength(1), CONDITION_WAIT);
      const linkClosed = new Promise<void>((resolve) => links[0]!.onClose(() => resolve()));
      const first = listener.terminatorPid!;
      process.kill(first, 'SIGKILL');
      await linkClosed;
      await vi.waitFor(() => expect(String(errors[0])).toMatch(/portico-tlsterm ended \(SIGKILL\); starting it again/), CONDITION_WAIT);
      // The device dials again, as agents do, and gets in through the new terminator.
      while (!(await opened(dial(listener.port, device)))) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(listener.terminatorPid).not.toBe(first);
      await vi.waitFor(() => expect(links).toHaveLength(2), CONDITION_WAIT);
      expect(links[1]!.peerSerial).toBe(SERIAL);
    } finally {
      await listener.close();
    }
  });
});
