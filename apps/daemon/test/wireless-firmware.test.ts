import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { adminClient, CONDITION_WAIT, get, json, post, startDaemon, writeConfirmed, type Client, type Harness } from './daemon-harness.js';
import { multipart } from './maintain-fixture.js';
import { FakeDevice } from './fixtures/wireless/wireless-fake-device.js';
import { wirelessServiceOf } from '../src/domains/wireless/wireless-module.js';
import { apGroup } from '@portico/schema';

let h: Harness;
let admin: Client;
const vendor = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
const image = Buffer.from('portico-ap firmware 2.0 '.repeat(4096));
const signed = (data: Buffer, key = vendor.privateKey) => sign(null, createHash('sha256').update(data).digest(), key).toString('base64');

beforeAll(async () => {
  // Short waves so a two-wave rollout runs within the test.
  h = await startDaemon({ deps: { wireless: { rolloutTiming: { soakMs: 50, returnDeadlineMs: 60_000 } } } as never });
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

const firmware = async (body: Record<string, unknown>) => json(await post(h.app, admin, '/api/ac/firmware', body));
const view = async () => json(await get(h.app, admin, '/api/ac/firmware')).data;

async function upload(fields: Record<string, string>, data: Buffer) {
  const form = multipart([...Object.entries(fields).map(([name, value]) => ({ name, value })), { name: 'file', value: data, filename: 'ap.bin' }]);
  const res = await h.app.inject({ method: 'POST', url: '/api/ac/firmware/upload', payload: form.body, headers: { 'content-type': form.contentType, cookie: admin.cookie, 'x-csrf-token': admin.csrf } });
  return json(res);
}

describe('AP firmware: trusted keys, signed images, waves', () => {
  test('only an image signed by a trusted key is kept; unsigned, tampered and foreign ones are refused', async () => {
    expect(await firmware({ action: 'addkey', name: 'vendor', pem: 'not a key' })).toMatchObject({ success: false, msg: 'msg.firmware.keyInvalid' });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(await firmware({ action: 'addkey', name: 'rsa', pem: rsa })).toMatchObject({ success: false, msg: 'msg.firmware.keyInvalid' });
    const pem = vendor.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(await firmware({ action: 'addkey', name: 'vendor', pem })).toMatchObject({ success: true });
    expect(await firmware({ action: 'addkey', name: 'again', pem })).toMatchObject({ success: false, msg: 'msg.firmware.keyExists' });

    expect(await upload({ model: 'PX-1', version: 'portico-ap 2.0' }, image)).toMatchObject({ success: false, errors: { signature: 'validation.required' } });
    expect(await upload({ model: 'PX-1', version: 'portico-ap 2.0', signature: 'c2ln' }, image)).toMatchObject({ success: false, errors: { signature: 'validation.wireless.signature' } });
    const tampered = Buffer.from(image);
    tampered.writeUInt8(tampered.readUInt8(10) ^ 1, 10);
    expect(await upload({ model: 'PX-1', version: 'portico-ap 2.0', signature: signed(image) }, tampered)).toMatchObject({ success: false, msg: 'msg.firmware.signatureInvalid' });
    expect(await upload({ model: 'PX-1', version: 'portico-ap 2.0', signature: signed(image, stranger.privateKey) }, image)).toMatchObject({ success: false, msg: 'msg.firmware.signatureInvalid' });
    const kept = await upload({ model: 'PX-1', version: 'portico-ap 2.0', signature: signed(image) }, image);
    expect(kept).toMatchObject({ success: true, data: { model: 'PX-1', size: image.length, sha256: createHash('sha256').update(image).digest('hex') } });
    expect((await view()).images).toHaveLength(1);
    // Nothing of the refused uploads is left in the firmware folder.
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(wirelessServiceOf(h.app.appContext)!.firmware.dir)).toEqual([`${kept.data.sha256}.bin`]);
  });

  test('a rollout upgrades a canary, then the rest; devices fetch the image through their own expiring link', async () => {
    const service = wirelessServiceOf(h.app.appContext)!;
    const group = await writeConfirmed(h, admin, apGroup, { action: 'add', name: 'Fleet' });
    const aps = ['02ee00000001', '02ee00000002', '02ee00000003'].map((serial) => new FakeDevice(serial, service.controller));
    const fetched: string[] = [];
    for (const ap of aps) {
      ap.connect();
      ap.answers.upgrade = (params, d) => {
        const uri = new URL(String(params.uri));
        fetched.push(uri.pathname + uri.search);
        // The device goes away and comes back on the new version.
        setTimeout(() => {
          d.link.close(1000, 'rebooting');
          const back = new FakeDevice(d.serial, service.controller);
          back.send('connect', { uuid: 0, firmware: 'portico-ap 2.0', capabilities: { platform: 'ap', model: 'PX-1' } });
        }, 5);
        return { serial: d.serial, status: { error: 0, when: 0 } };
      };
    }
    expect(json(await post(h.app, admin, '/api/ac/apcmd', { action: 'adopt', serials: aps.map((a) => a.serial), group })).data.done).toHaveLength(3);
    const started = await firmware({ action: 'rollout', id: (await view()).images[0].id, serials: [...aps.map((a) => a.serial), '02ee000000ff'], canary: 1, waves: [100] });
    expect(started).toMatchObject({ success: true, data: { refused: [{ serial: '02ee000000ff', reason: 'unknownDevice' }] } });
    await vi.waitFor(async () => expect((await view()).rollout).toMatchObject({ state: 'done', failures: 0 }), CONDITION_WAIT);
    const rollout = (await view()).rollout;
    expect(rollout.aps.map((a: { status: string }) => a.status)).toEqual(['upgraded', 'upgraded', 'upgraded']);
    expect(new Set(rollout.aps.map((a: { wave: number }) => a.wave))).toEqual(new Set([0, 1]));
    expect(fetched).toHaveLength(3);
    // A device's link fetches the image; altered or used by another device, it is refused.
    const link = fetched[0]!;
    const ok = await h.app.inject({ method: 'GET', url: link });
    expect(ok.statusCode).toBe(200);
    expect(ok.rawPayload.equals(image)).toBe(true);
    expect((await h.app.inject({ method: 'GET', url: link.replace(/serial=[0-9a-f]+/, 'serial=02ee00000009') })).statusCode).toBe(403);
    expect((await h.app.inject({ method: 'GET', url: link.replace(/token=[^&]+/, 'token=AAAA') })).statusCode).toBe(403);
  });

  test('a rollout\'s soak and return deadline are seconds within bounds', async () => {
    const { images } = await view();
    const start = (extra: Record<string, unknown>) => firmware({ action: 'rollout', id: images[0].id, serials: ['02ee00000001'], ...extra });
    expect(await start({ deadline: 10 })).toMatchObject({ success: false, errors: { deadline: expect.any(String) } });
    expect(await start({ soak: -1 })).toMatchObject({ success: false, errors: { soak: expect.any(String) } });
    expect(await start({ deadline: 1.5 })).toMatchObject({ success: false, errors: { deadline: expect.any(String) } });
  });

  test('a key that signed a kept image is not removed; an image is deleted with its file', async () => {
    const { keys, images } = await view();
    expect(await firmware({ action: 'delkey', id: keys[0].id })).toMatchObject({ success: false, msg: 'msg.firmware.inUse' });
    expect(await firmware({ action: 'delete', id: images[0].id })).toMatchObject({ success: true });
    expect(await firmware({ action: 'delkey', id: keys[0].id })).toMatchObject({ success: true });
  });
});

describe('firmware links', () => {
  test('a device fetches on the address it reached the controller on, with the console\'s scheme and port', async () => {
    const { deviceBase } = await import('../src/domains/wireless/wireless-service.js');
    expect(deviceBase('http://192.168.1.1', '10.0.5.1')).toBe('http://10.0.5.1');
    expect(deviceBase('https://gw.example.com:8443', '192.168.1.1')).toBe('https://192.168.1.1:8443');
    expect(deviceBase('http://192.168.1.1:8080', 'fd00::1')).toBe('http://[fd00::1]:8080');
    // Not known, or not an address: the console's own base.
    expect(deviceBase('http://192.168.1.1:8080', null)).toBe('http://192.168.1.1:8080');
    expect(deviceBase('http://192.168.1.1:8080', 'evil.example/x')).toBe('http://192.168.1.1:8080');
    // Through a relay or proxy, the Host header's port is not the gateway's: its own listener's is.
    expect(deviceBase('http://127.0.0.1:41234', '10.0.5.1', 8080)).toBe('http://10.0.5.1:8080');
    expect(deviceBase('http://127.0.0.1:41234', null, 8080)).toBe('http://127.0.0.1:41234');
  });
});
