import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { adminWithPassword, freePort, launchBrowser, newPage, REPO, startDaemon, type RunningDaemon } from './e2e-harness.js';
import { buildPortalServer } from '../../apps/daemon/src/domains/hotspot/hotspot-portal.js';
import { HotspotEngine } from '../../apps/daemon/src/domains/hotspot/hotspot-engine.js';
import { SimDataplane } from '../../apps/daemon/src/domains/hotspot/hotspot-dataplane.js';
import { simNeighbours } from '../../apps/daemon/src/domains/hotspot/hotspot-neighbours.js';
import type { HotspotConfig, HotspotZone } from '../../apps/daemon/src/domains/hotspot/hotspot-types.js';

/*
 * A logo uploaded through the admin API of the built daemon reaches the built captive portal
 * in Chromium: the portal listener (with the daemon's state folder as its file store) puts the
 * logo's address in the zone data and serves it, and the page shows the decoded image.
 * Chromium connects from 127.0.0.1, which is here the hotspot zone's client network.
 */

const ZONE: HotspotZone = {
  name: 'guests',
  interfaces: ['lan'],
  welcome: 'Welcome to Harbour Cafe',
  contact: '',
  copyright: '',
  logintext: '',
  chargetext: '',
  tos: '',
  methods: ['voucher'],
  password: '',
  redirectUrl: '',
  sessionSeconds: 3600,
  idleSeconds: 600,
  plan: '',
};
const CONFIG: HotspotConfig = { zones: [ZONE], plans: [], whiteList: [], blackList: [], accountingSeconds: 60 };

let daemon: RunningDaemon;
let browser: Browser;
let portal: Awaited<ReturnType<typeof buildPortalServer>>;
let portalUrl: string;


/** A real, decodable PNG of one colour (the daemon checks its header; Chromium decodes it). */
function solidPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // truecolour
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([0x1f, 0x6f, 0xb4], 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Signs in to the admin API and keeps what a multipart upload needs: the cookie and CSRF token. */
async function adminUploader(base: string, password: string) {
  const reply = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  const body = (await reply.json()) as { success: boolean; data: { csrf: string } };
  expect(body.success).toBe(true);
  const cookie = reply.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.includes('_sid='))!;
  return async (kind: string, filename: string, data: Buffer) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(data)], { type: 'image/png' }), filename);
    const res = await fetch(`${base}/api/portal/upload/${kind}?_=${Date.now()}`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': body.data.csrf },
      body: form,
    });
    return (await res.json()) as { success: boolean; msg?: string };
  };
}

beforeAll(async () => {
  [daemon, browser] = await Promise.all([startDaemon(), launchBrowser()]);
  await adminWithPassword(daemon, 'AdminPassw0rd');
  const engine = new HotspotEngine({
    dataplane: new SimDataplane(),
    config: () => CONFIG,
    credentials: {
      verifyLocalUser: async () => ({ ok: false, error: 'portal.error.userOrPassword' }),
      redeemVoucher: async () => ({ ok: false, error: 'portal.error.code' }),
    },
  });
  const port = await freePort();
  portal = await buildPortalServer({
    engine,
    zoneFor: (ip) => (ip === '127.0.0.1' ? { zone: ZONE, gateway: '127.0.0.1' } : null),
    neighbours: simNeighbours,
    portalPort: port,
    portalDir: join(REPO, 'apps/portal/dist'),
    notices: () => ({ local: '', expired: '', renewUrl: '' }),
    files: { stateDir: daemon.stateDir, customPortal: () => false },
  });
  await portal.listen({ port, host: '127.0.0.1' });
  portalUrl = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await portal?.close();
  await browser?.close();
  await daemon?.stop();
});

describe('uploaded portal files in the browser', () => {
  test('a logo uploaded through the admin API is shown on the portal page', async () => {
    const { context, page } = await newPage(browser);
    await page.goto(`${portalUrl}/auth/portal`);
    await page.getByTestId('zone-welcome').waitFor();
    expect(await page.getByTestId('zone-logo').count()).toBe(0);

    const logo = solidPng(960, 640);
    expect(logo.length).toBeLessThanOrEqual(30 * 1024);
    const upload = await adminUploader(daemon.url, 'AdminPassw0rd');
    const stored = await upload('logo', 'harbour-logo.png', logo);
    expect(stored.success, JSON.stringify(stored)).toBe(true);

    await page.reload();
    const image = page.getByTestId('zone-logo');
    await image.waitFor();
    expect(await image.getAttribute('src')).toMatch(new RegExp(`^${portalUrl}/portal-files/logo\\?v=`));
    // Decoded by the browser, not merely referenced.
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('[data-testid="zone-logo"]');
      return Boolean(img?.complete && img.naturalWidth === 960 && img.naturalHeight === 640);
    });
    const served = await context.request.get(`${portalUrl}/portal-files/logo`);
    expect(served.status()).toBe(200);
    expect(served.headers()['content-type']).toBe('image/png');
    expect(served.headers()['x-content-type-options']).toBe('nosniff');
    await context.close();
  });
});
