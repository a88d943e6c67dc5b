import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { LicenseRefused, signLicense, verifyLicense, type License } from '../src/domains/license/license-file.js';
import { addAccount, adminClient, CONDITION_WAIT, get, json, login, post, startDaemon, tempDir, type Client, type Harness } from './daemon-harness.js';

const vendor = generateKeyPairSync('ed25519');
const pirate = generateKeyPairSync('ed25519');
const DAY = 86_400_000;

describe('licence file', () => {
  const base = (device: string, now: number): License => ({ format: 1, id: 'LIC-1', device, edition: 'Standard', issued: now, expires: now + 365 * DAY });
  const refusal = (text: string, device = 'PT0001', now = 1000) => {
    try {
      verifyLicense(text, vendor.publicKey, device, now);
      return 'accepted';
    } catch (error) {
      return (error as LicenseRefused).reason;
    }
  };

  test('verifies offline for its device; refuses other keys, devices, tampering, expiry and junk', () => {
    const text = signLicense(base('PT0001', 1000), vendor.privateKey);
    expect(verifyLicense(text, vendor.publicKey, 'PT0001', 2000)).toMatchObject({ id: 'LIC-1', edition: 'Standard' });
    expect(refusal(signLicense(base('PT0001', 1000), pirate.privateKey))).toBe('signature');
    expect(refusal(text, 'PT0002')).toBe('otherDevice');
    expect(refusal(text, 'PT0001', 1000 + 366 * DAY)).toBe('expired');
    const file = JSON.parse(text) as { payload: string; signature: string };
    const changed = Buffer.from(file.payload, 'base64').toString().replace('Standard', 'Ultimate');
    expect(refusal(JSON.stringify({ ...file, payload: Buffer.from(changed).toString('base64') }))).toBe('signature');
    expect(refusal(JSON.stringify({ payload: file.payload }))).toBe('format');
    expect(refusal('not json')).toBe('format');
    expect(refusal(JSON.stringify({ ...file, signature: '' }))).toBe('signature');
  });
});

/** The licence server on loopback: codes it knows, one used, one flagged as pirated. */
class LicenseServer {
  requests: Array<Record<string, unknown>> = [];
  hold = false;
  private held: (() => void) | null = null;
  /** Answer for the next request, when set: raw text. */
  raw: string | null = null;
  server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const ask = JSON.parse(Buffer.concat(chunks).toString()) as { device: string; code: string };
      this.requests.push(ask);
      const answer = () => {
        res.setHeader('content-type', 'application/json');
        if (this.raw !== null) return res.end(this.raw);
        if (ask.code === 'GOOD-CODE-0001') {
          const license = signLicense({ format: 1, id: 'LIC-77', device: ask.device, edition: 'Enterprise', issued: Date.UTC(2025, 0, 1), expires: null }, vendor.privateKey);
          return res.end(JSON.stringify({ result: 'ok', license }));
        }
        if (ask.code === 'USED-CODE-0001') return res.end(JSON.stringify({ result: 'refused', reason: 'used' }));
        if (ask.code === 'PIRATE-CODE-01') return res.end(JSON.stringify({ result: 'locked' }));
        return res.end(JSON.stringify({ result: 'refused', reason: 'invalidCode' }));
      };
      if (this.hold) this.held = answer;
      else answer();
    });
  });
  url = '';
  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/activate`;
  }
  release() {
    this.held?.();
    this.held = null;
  }
}

const server = new LicenseServer();
let h: Harness;
let admin: Client;
const state = async () => json(await get(h.app, admin, '/api/registration?_=1')).data;
const settled = () => vi.waitFor(async () => expect((await state()).attempt?.running ?? false).toBe(false), CONDITION_WAIT);

beforeAll(async () => {
  await server.start();
  const keyFile = join(tempDir('portico-lic-key-'), 'license.pem');
  writeFileSync(keyFile, vendor.publicKey.export({ type: 'spki', format: 'pem' }));
  h = await startDaemon({ env: { PORTICO_LICENSE_URL: server.url, PORTICO_LICENSE_KEY: keyFile } });
  admin = await adminClient(h);
});
afterAll(async () => {
  server.release();
  await h.close();
  await new Promise((resolve) => server.server.close(resolve));
});

describe('licence states through /api/registration', () => {
  test('a new device is unlicensed and not activated', async () => {
    expect(await state()).toMatchObject({ state: 'unlicensed', isRegister: false, locked: false, license: null, serverConfigured: true });
    expect((await state()).sn).toMatch(/\S/);
  });

  test('a wrong or used code: activation failed, still unlicensed underneath', async () => {
    expect(json(await post(h.app, admin, '/api/registration', { code: 'WRONG-CODE-01' })).success).toBe(true);
    await settled();
    expect(await state()).toMatchObject({ state: 'activationFailed', isRegister: false, attempt: { error: { msg: 'msg.license.invalidCode' } } });
    await post(h.app, admin, '/api/registration', { code: 'USED-CODE-0001' });
    await settled();
    expect((await state()).attempt.error.msg).toBe('msg.license.codeUsed');
    expect(server.requests.at(-1)).toMatchObject({ code: 'USED-CODE-0001', device: (await state()).sn });
  });

  test('activating while the server answers, with its counter; then activation success and licensed after a restart', async () => {
    server.hold = true;
    expect(json(await post(h.app, admin, '/api/registration', { action: 'update', code: 'GOOD-CODE-0001' })).data.state).toBe('activating');
    await vi.waitFor(() => expect(server.requests.at(-1)?.code).toBe('GOOD-CODE-0001'), CONDITION_WAIT);
    h.clock.advance(4);
    expect(await state()).toMatchObject({ state: 'activating', attempt: { running: true, elapsedSeconds: 4 } });
    expect(json(await post(h.app, admin, '/api/registration', { code: 'GOOD-CODE-0001' }))).toMatchObject({ success: false, msg: 'msg.license.busy' });
    server.hold = false;
    server.release();
    await settled();
    expect(await state()).toMatchObject({ state: 'activationSuccess', isRegister: true, license: { id: 'LIC-77', edition: 'Enterprise', expires: null } });
    expect(statSync(join(h.stateDir, 'license', 'license.json')).mode & 0o777).toBe(0o600);
    h = await h.restart();
    admin = await login(h.app, 'admin', 'Admin2025pass');
    expect(await state()).toMatchObject({ state: 'licensed', isRegister: true, locked: false });
  });

  test('a licence server answering junk: connect failed, the licence kept', async () => {
    server.raw = '{"result":"ok","license":42}';
    await post(h.app, admin, '/api/registration', { code: 'GOOD-CODE-0001' });
    await settled();
    expect(await state()).toMatchObject({ state: 'activationFailed', isRegister: true, attempt: { error: { msg: 'msg.license.connectFailed' } } });
    server.raw = null;
  });

  test('a licence of another device imported: refused and the device locked with the piracy warning', async () => {
    const copied = signLicense({ format: 1, id: 'LIC-9', device: 'PT-OTHER-BOX', edition: 'Standard', issued: 0, expires: null }, vendor.privateKey);
    // Refused when imported…
    expect(json(await post(h.app, admin, '/api/registration', { action: 'import', license: copied }))).toMatchObject({
      success: false,
      msg: 'msg.license.refusedOtherDevice',
    });
    // …and a copied file found in place locks the device.
    writeFileSync(join(h.stateDir, 'license', 'license.json'), copied);
    expect(await state()).toMatchObject({ state: 'locked', locked: true, lockReason: 'otherDevice', isRegister: false });
    // A genuine licence of this device lifts that lock.
    const own = signLicense({ format: 1, id: 'LIC-10', device: (await state()).sn, edition: 'Standard', issued: 0, expires: null }, vendor.privateKey);
    expect(json(await post(h.app, admin, '/api/registration', { action: 'import', license: own })).data).toMatchObject({ state: 'licensed', locked: false });
  });

  test('the licence server flags the code as pirated: locked', async () => {
    await post(h.app, admin, '/api/registration', { code: 'PIRATE-CODE-01' });
    await settled();
    expect(await state()).toMatchObject({ state: 'locked', locked: true, lockReason: 'server', isRegister: false });
  });

  test('hostile input is refused; a visitor reads but cannot activate', async () => {
    for (const code of ['short', 'GOOD-CODE-0001\n', 'a'.repeat(65), "x' OR 1=1 --", '<script>alert(1)</script>']) {
      expect(json(await post(h.app, admin, '/api/registration', { code }))).toMatchObject({ success: false, errors: { code: 'validation.invalid' } });
    }
    expect(json(await post(h.app, admin, '/api/registration', { action: 'import', license: 'x'.repeat(20_000) }))).toMatchObject({ success: false });
    await addAccount(h, admin, 'viewer', 2);
    const viewer = await login(h.app, 'viewer', 'viewerPass123', '127.0.0.9');
    expect(json(await get(h.app, viewer, '/api/registration?_=2')).success).toBe(true);
    expect(json(await post(h.app, viewer, '/api/registration', { code: 'GOOD-CODE-0001' }))).toMatchObject({ success: false, msg: 'forbidden' });
    expect(json(await post(h.app, viewer, '/api/registration', { action: 'get' })).success).toBe(true);
  });
});
