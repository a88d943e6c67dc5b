import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentSettings, SERIAL } from './agent-fixtures.js';
import { FakeClock } from './fake-clock.js';
import { FakeRadioDriver } from './fake-radio-driver.js';
import { startAgent, type AgentUnderTest } from './session-harness.js';

const image = randomBytes(256 * 1024);
const keys = generateKeyPairSync('ed25519');
const signatureOf = (data: Buffer, privateKey = keys.privateKey) => sign(null, createHash('sha256').update(data).digest(), privateKey).toString('base64');

let server: Server;
let base = '';
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/firmware.bin') res.end(image);
    else if (req.url === '/chunked') {
      // No Content-Length: the size limit has to hold while the image streams.
      res.write(image.subarray(0, 100 * 1024));
      res.end(image.subarray(100 * 1024));
    } else if (req.url === '/moved') res.writeHead(302, { location: '/firmware.bin' }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const running: AgentUnderTest[] = [];
afterEach(() => {
  for (const a of running.splice(0)) a.session.stop();
  requests.length = 0;
});

async function agent(maxBytes = 1024 * 1024) {
  const settings = agentSettings({ firmware: { maxBytes } });
  const clock = new FakeClock();
  const a = await startAgent(new FakeRadioDriver(), { settings, clock, firmwareKey: keys.publicKey });
  running.push(a);
  return { a, ctl: await a.controller(), clock, firmwareDir: join(settings.stateDir, 'firmware') };
}

const leftovers = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);
const upgrade = (uri: string, signature?: string) => ({ serial: SERIAL, uri, ...(signature === undefined ? {} : { FWsignature: signature }) });

describe('upgrade', () => {
  it('fetches the image, checks its Ed25519 signature and hands it to the system after answering', async () => {
    const { a, ctl, clock } = await agent();
    const answer = await ctl.call('upgrade', upgrade(`${base}/moved`, signatureOf(image)));
    expect(answer.result).toEqual({ serial: SERIAL, status: { error: 0, text: '', when: Math.floor(clock.now() / 1000) } });
    expect(requests).toEqual(['/moved', '/firmware.bin']);
    expect(a.system.calls).toEqual([]);
    await clock.advance(1000);
    const [call] = a.system.calls;
    expect(call?.[0]).toBe('upgrade');
    expect(readFileSync(call![1] as string).equals(image)).toBe(true);
  });

  it('refuses a bad signature with 1 and keeps nothing of the image', async () => {
    const { a, ctl, clock, firmwareDir } = await agent();
    const other = generateKeyPairSync('ed25519');
    for (const signature of [signatureOf(image, other.privateKey), signatureOf(Buffer.concat([image, Buffer.from([0])])), 'not base64!', Buffer.alloc(64).toString('base64')]) {
      const answer = await ctl.call('upgrade', upgrade(`${base}/firmware.bin`, signature));
      expect(answer.result?.status).toEqual({ error: 1, text: 'ucentral.status.firmware.badSignature' });
    }
    await clock.advance(5000);
    expect(a.system.calls).toEqual([]);
    expect(leftovers(firmwareDir)).toEqual([]);
  });

  it('refuses an unsigned image with 2 before fetching it', async () => {
    const { a, ctl } = await agent();
    const answer = await ctl.call('upgrade', upgrade(`${base}/firmware.bin`));
    expect(answer.result?.status).toEqual({ error: 2, text: 'ucentral.status.firmware.missingSignature' });
    expect(requests).toEqual([]);
    expect(a.system.calls).toEqual([]);
  });

  it('refuses an image larger than the settings allow, and one that cannot be fetched', async () => {
    const { ctl, firmwareDir } = await agent(64 * 1024);
    expect((await ctl.call('upgrade', upgrade(`${base}/firmware.bin`, signatureOf(image)))).result?.status).toEqual({ error: 1, text: 'ucentral.status.firmware.tooLarge' });
    expect((await ctl.call('upgrade', upgrade(`${base}/chunked`, signatureOf(image)))).result?.status).toEqual({ error: 1, text: 'ucentral.status.firmware.tooLarge' });
    expect((await ctl.call('upgrade', upgrade(`${base}/missing.bin`, signatureOf(image)))).result?.status).toEqual({ error: 1, text: 'ucentral.status.firmware.downloadFailed' });
    expect(leftovers(firmwareDir)).toEqual([]);
  });
});
