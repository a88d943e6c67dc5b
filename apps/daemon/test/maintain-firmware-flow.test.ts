import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Scheduler } from '../src/config/config-types.js';
import { DAEMON_VERSION } from '../src/drivers/live-source.js';
import { signFirmware } from '../src/domains/maintain/maintain-firmware-image.js';
import { addAccount, adminClient, CONDITION_WAIT, get, json, login, post, startDaemon, tempDir, type Client, type Harness } from './daemon-harness.js';
import { RecordingApplier } from './maintain-fixture.js';

/** Timers a test fires by hand (the restart after an upgrade). */
class ManualScheduler {
  jobs: Array<() => void> = [];
  schedule: Scheduler = (_ms, work) => {
    this.jobs.push(work);
    return () => undefined;
  };
  runAll(): void {
    for (const job of this.jobs.splice(0)) job();
  }
}

const keys = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
const NEW_VERSION = '99.1.0';
const payload = Buffer.alloc(256 * 1024, 0x5a);
payload.write('portico root file system 99.1.0');
const MAX_BYTES = 1024 * 1024;

/** The update server: a manifest and images on loopback; `hold` keeps an image's second half until released. */
class UpdateServer {
  manifest: unknown = { version: '0.0.1', url: 'images/old.img', size: 10 };
  images = new Map<string, Buffer>();
  held: { res: ServerResponse; rest: Buffer } | null = null;
  hold = false;
  server: Server = createServer((req, res) => {
    if (req.url === '/portico/latest.json') {
      res.setHeader('content-type', 'application/json');
      res.end(typeof this.manifest === 'string' ? this.manifest : JSON.stringify(this.manifest));
      return;
    }
    const image = this.images.get(req.url ?? '');
    if (!image) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-length', String(image.length));
    if (!this.hold) {
      res.end(image);
      return;
    }
    const half = Math.floor(image.length / 2);
    res.write(image.subarray(0, half));
    this.held = { res, rest: image.subarray(half) };
  });
  url = '';
  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/portico/latest.json`;
  }
  release(): void {
    this.held?.res.end(this.held.rest);
    this.held = null;
  }
  offer(version: string, image: Buffer, name = `fw-${version}.img`): void {
    this.images.set(`/portico/images/${name}`, image);
    this.manifest = { version, url: `images/${name}`, size: image.length, board: 'x86-64' };
  }
}

const updates = new UpdateServer();
const timers = new ManualScheduler();
let h: Harness;
let admin: Client;

const STATUS = '/api/sysconf/bgcheck';
const status = async (client = admin) => json(await get(h.app, client, `${STATUS}?_=1`)).data;
const idle = () => vi.waitFor(async () => expect((await status()).running).toBe(false), CONDITION_WAIT);

function uploadBody(file: Buffer, field = 'firmware') {
  const boundary = '----portico-fw-test';
  return {
    payload: Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="fw.img"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
    headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf, 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

async function upload(file: Buffer, field?: string) {
  const body = uploadBody(file, field);
  return json(await h.app.inject({ method: 'POST', url: '/api/sysconf/bgdownload', remoteAddress: '127.0.0.1', ...body }));
}

beforeAll(async () => {
  await updates.start();
  const keyDir = tempDir('portico-fw-key-');
  const keyFile = join(keyDir, 'firmware.pem');
  writeFileSync(keyFile, keys.publicKey.export({ type: 'spki', format: 'pem' }));
  h = await startDaemon({
    env: { PORTICO_UPDATE_URL: updates.url, PORTICO_FIRMWARE_KEY: keyFile, PORTICO_LAN_PORTS: 'eth1' },
    deps: { config: { applier: new RecordingApplier() }, maintain: { schedule: timers.schedule, simRestartSeconds: 5, firmware: { maxBytes: MAX_BYTES } } },
  });
  admin = await adminClient(h);
});

afterAll(async () => {
  updates.release();
  await h.close();
  await new Promise((resolve) => updates.server.close(resolve));
});

describe('firmware flow: check → download → file check → upgrade', () => {
  test('before anything: the running version, a server configured, nothing checked', async () => {
    expect(await status()).toMatchObject({ current: DAEMON_VERSION, serverConfigured: true, latest: null, file: null, running: false, operation: null });
    for (const path of ['bgcheckresult', 'bgdownload', 'bgfilecheck', 'bgupgrade']) {
      expect(json(await get(h.app, admin, `/api/sysconf/${path}?_=1`)).data.current).toBe(DAEMON_VERSION);
    }
  });

  test('no newer version on the server: "no new version", and nothing to download', async () => {
    expect(json(await post(h.app, admin, STATUS, {})).success).toBe(true);
    await idle();
    expect((await status()).latest).toEqual({ version: '0.0.1', size: 10, newer: false });
    expect(json(await post(h.app, admin, '/api/sysconf/bgdownload', {}))).toMatchObject({ success: false, msg: 'msg.firmwareFlow.noNewVersion' });
  });

  test('an update server answering nonsense or nothing: connect failed', async () => {
    updates.manifest = '{"version":"1.0.0; rm -rf /","url":"x","size":1}';
    await post(h.app, admin, STATUS, {});
    await idle();
    expect((await status()).error).toMatchObject({ msg: 'msg.firmwareFlow.connectFailed' });
    updates.manifest = { version: '100.0.0', url: 'file:///etc/shadow', size: 10 };
    await post(h.app, admin, STATUS, {});
    await idle();
    expect((await status())).toMatchObject({ latest: null, error: { msg: 'msg.firmwareFlow.connectFailed' } });
  });

  test('a newer version is offered, downloaded with its progress and counter, then checked and installed', async () => {
    const signed = signFirmware(payload, NEW_VERSION, keys.privateKey);
    updates.offer(NEW_VERSION, signed);
    await post(h.app, admin, STATUS, {});
    await idle();
    expect((await status()).latest).toEqual({ version: NEW_VERSION, size: signed.length, newer: true });

    updates.hold = true;
    expect(json(await post(h.app, admin, '/api/sysconf/bgdownload', {})).data).toMatchObject({ operation: 'download', running: true });
    await vi.waitFor(async () => expect((await status()).done).toBe(Math.floor(signed.length / 2)), CONDITION_WAIT);
    h.clock.advance(7);
    // Another browser (a reload, a new sign-in) finds the same operation and counter.
    const other = await login(h.app, 'admin', 'Admin2025pass', '127.0.0.2');
    expect(await status(other)).toMatchObject({ operation: 'download', running: true, elapsedSeconds: 7, total: signed.length });
    expect(json(await post(h.app, admin, STATUS, {}))).toMatchObject({ success: false, msg: 'msg.firmwareFlow.busy' });
    updates.hold = false;
    updates.release();
    await idle();
    expect(await status()).toMatchObject({ error: null, file: { version: NEW_VERSION, size: signed.length, verified: false } });

    // No upgrade of an unchecked file.
    expect(json(await post(h.app, admin, '/api/sysconf/bgupgrade', { keepConfig: true }))).toMatchObject({ success: false, msg: 'msg.firmwareFlow.notVerified' });
    await post(h.app, admin, '/api/sysconf/bgfilecheck', {});
    await idle();
    expect((await status()).file).toEqual({ version: NEW_VERSION, size: signed.length, verified: true });

    const revisionsBefore = json(await get(h.app, admin, '/api/sysconf/journal?page=1&pageSize=1')).data.total;
    expect(json(await post(h.app, admin, '/api/sysconf/bgupgrade', { keepConfig: true })).success).toBe(true);
    await vi.waitFor(async () => expect(timers.jobs.length).toBe(1), CONDITION_WAIT);
    // The device goes down: every call answers "restarting" until it is back.
    expect((await get(h.app, admin, `${STATUS}?_=2`)).statusCode).toBe(503);
    const slotDir = join(h.stateDir, 'firmware', 'slots');
    expect(readFileSync(join(slotDir, 'slot-b.img')).equals(payload)).toBe(true);
    timers.runAll();
    await vi.waitFor(async () => expect((await get(h.app, admin, `${STATUS}?_=3`)).statusCode).toBe(200), CONDITION_WAIT);
    expect(await status()).toMatchObject({
      current: NEW_VERSION,
      upgraded: { version: NEW_VERSION, keepConfig: true },
      file: null,
      slots: { running: 'b', versions: { a: DAEMON_VERSION, b: NEW_VERSION }, trial: null },
    });
    // The configuration was kept: no revision was written by the upgrade.
    expect(json(await get(h.app, admin, '/api/sysconf/journal?page=1&pageSize=1')).data.total).toBe(revisionsBefore);
    // The version now running is not newer than itself.
    await post(h.app, admin, STATUS, {});
    await idle();
    expect((await status()).latest.newer).toBe(false);
  });

  test('a tampered, truncated or foreign-signed download is refused at the file check and never installed', async () => {
    const good = signFirmware(payload, '99.2.0', keys.privateKey);
    const tampered = Buffer.from(good);
    tampered[tampered.length - 10] = tampered[tampered.length - 10]! ^ 1;
    const cases: Array<[Buffer, string]> = [
      [tampered, 'digest'],
      [signFirmware(payload, '99.2.0', stranger.privateKey), 'signature'],
      [payload, 'unsigned'],
    ];
    for (const [image, reason] of cases) {
      updates.offer('99.2.0', image, `bad-${reason}.img`);
      await post(h.app, admin, STATUS, {});
      await idle();
      await post(h.app, admin, '/api/sysconf/bgdownload', {});
      await idle();
      await post(h.app, admin, '/api/sysconf/bgfilecheck', {});
      await idle();
      expect(await status()).toMatchObject({ error: { msg: 'msg.firmwareFlow.corrupt', reason }, file: { verified: false } });
      expect(json(await post(h.app, admin, '/api/sysconf/bgupgrade', {}))).toMatchObject({ success: false, msg: 'msg.firmwareFlow.notVerified' });
    }
    // A server sending fewer bytes than it announced: the download fails and keeps nothing.
    updates.images.set('/portico/images/short.img', good);
    updates.manifest = { version: '99.2.0', url: 'images/short.img', size: good.length + 5 };
    await post(h.app, admin, STATUS, {});
    await idle();
    await post(h.app, admin, '/api/sysconf/bgdownload', {});
    await idle();
    expect(await status()).toMatchObject({ error: { msg: 'msg.firmwareFlow.downloadFailed' }, file: null });
    // Nothing of the refused images reached a slot: slot a was never written, no trial is pending.
    expect(existsSync(join(h.stateDir, 'firmware', 'slots', 'slot-a.img'))).toBe(false);
    expect((await status()).slots).toMatchObject({ running: 'b', trial: null });
  });

  test('a file larger than announced or than the device takes stops the download', async () => {
    const big = Buffer.alloc(MAX_BYTES + 10, 1);
    updates.images.set('/portico/images/big.img', big);
    updates.manifest = { version: '99.3.0', url: 'images/big.img', size: 1000 };
    await post(h.app, admin, STATUS, {});
    await idle();
    await post(h.app, admin, '/api/sysconf/bgdownload', {});
    await idle();
    expect(await status()).toMatchObject({ error: { msg: 'msg.firmwareFlow.tooLarge' }, file: null });
    updates.manifest = { version: '99.3.0', url: 'images/big.img', size: big.length };
    await post(h.app, admin, STATUS, {});
    await idle();
    expect(json(await post(h.app, admin, '/api/sysconf/bgdownload', {}))).toMatchObject({ success: false, msg: 'msg.firmwareFlow.tooLarge' });
  });
});

describe('manual upload', () => {
  test('a signed file is stored, checked, and an upgrade without keeping the configuration resets it', async () => {
    const signed = signFirmware(payload, '99.4.0', keys.privateKey);
    expect(await upload(signed)).toMatchObject({ success: true, data: { operation: 'upload', file: { size: signed.length, verified: false } } });
    await post(h.app, admin, '/api/sysconf/bgfilecheck', {});
    await idle();
    expect((await status()).file).toMatchObject({ version: '99.4.0', verified: true });
    expect(json(await post(h.app, admin, '/api/sysconf/bgupgrade', { keepConfig: false })).success).toBe(true);
    await vi.waitFor(async () => expect(timers.jobs.length).toBe(1), CONDITION_WAIT);
    expect(readFileSync(join(h.stateDir, 'firmware', 'slots', 'slot-a.img')).equals(payload)).toBe(true);
    timers.runAll();
    await vi.waitFor(async () => expect((await get(h.app, admin, `/api/sysconf/backup?_=4`)).statusCode).toBe(200), CONDITION_WAIT);
    const journal = json(await get(h.app, admin, '/api/sysconf/journal?page=1&pageSize=1')).data;
    expect(journal.items[0].summary).toMatchObject({ key: 'factoryReset' });
    expect(await status()).toMatchObject({ current: '99.4.0', slots: { running: 'a' }, upgraded: { keepConfig: false } });
  });

  test('an upload over the limit, under another field name or empty is refused and nothing is kept', async () => {
    expect(await upload(Buffer.alloc(MAX_BYTES + 1000, 1))).toMatchObject({ success: false, msg: 'msg.firmwareFlow.tooLarge' });
    expect((await status()).file).toBeNull();
    expect(await upload(Buffer.from('x'), 'backup')).toMatchObject({ success: false, msg: 'msg.firmwareFlow.uploadFailed' });
    expect(await upload(Buffer.alloc(0))).toMatchObject({ success: false, msg: 'msg.firmwareFlow.uploadFailed' });
    expect(existsSync(join(h.stateDir, 'firmware', 'firmware.img'))).toBe(false);
  });

  test('a read-only account reads the flow but starts nothing; a bad body is refused', async () => {
    await addAccount(h, admin, 'viewer', 2);
    const viewer = await login(h.app, 'viewer', 'viewerPass123', '127.0.0.3');
    expect(json(await get(h.app, viewer, `${STATUS}?_=5`)).success).toBe(true);
    for (const path of ['bgcheck', 'bgdownload', 'bgfilecheck', 'bgupgrade']) {
      expect(json(await post(h.app, viewer, `/api/sysconf/${path}`, {}))).toMatchObject({ success: false, msg: 'forbidden' });
    }
    expect(json(await post(h.app, admin, '/api/sysconf/bgupgrade', { keepConfig: 'yes\n' }))).toMatchObject({ success: false, errors: { keepConfig: expect.any(String) } });
  });
});
