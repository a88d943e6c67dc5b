import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { signReturn } from '../../apps/daemon/src/domains/hotspot/cloudportal/cloudportal-sign.js';
import { adminWithPassword, launchBrowser, newPage, startDaemon, type ApiSession, type RunningDaemon } from './e2e-harness.js';
import enUS from '../../packages/i18n/src/locales/en-US/portal.json';

/**
 * The portal in Chromium against the built daemon: a guest of a `cloudportal` zone whose sign-in
 * the cloud denies comes back to the gateway and lands on the portal page, which shows why.
 */
const SECRET = 'cloud-shared-secret-0123456789';
let daemon: RunningDaemon;
let browser: Browser;
let api: ApiSession;

/**
 * The stand-in cloud: answers every login with a signed `result=denied`, sending the browser
 * back to the gateway's portal listener.
 */
let cloud: Server;
let cloudPort = 0;

beforeAll(async () => {
  [daemon, browser] = await Promise.all([startDaemon({ PORTICO_LAN_PORTS: 'eth1' }), launchBrowser()]);
  cloud = createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    const ts = Math.floor(Date.now() / 1000);
    const answer = { gw_id: q.get('gw_id') ?? '', nonce: q.get('nonce') ?? '', ip: q.get('ip') ?? '', mac: q.get('mac') ?? '', ts, result: 'denied' as const, account: '' };
    const back = new URL(`${daemon.portalUrl}/cloudportal/auth`);
    for (const [k, v] of Object.entries({ nonce: answer.nonce, ts: String(ts), result: answer.result, account: '', sig: signReturn(SECRET, answer) })) back.searchParams.set(k, v);
    res.writeHead(302, { location: back.toString() }).end();
  });
  await new Promise<void>((resolve) => cloud.listen(0, '127.0.0.1', resolve));
  cloudPort = (cloud.address() as AddressInfo).port;
  api = await adminWithPassword(daemon, 'AdminPassw0rd');
  const saved = await api.post('auth/cloudportal', { authurl: `http://127.0.0.1:${cloudPort}/login`, secret: SECRET });
  expect(saved.success, JSON.stringify(saved)).toBe(true);
  const zones = (await api.get('auth/zone')).data as { items: Array<{ id: string }> };
  for (const zone of zones.items) expect((await api.post('auth/zone', { action: 'delete', id: zone.id })).success).toBe(true);
  const added = await api.post('auth/zone', { action: 'add', name: 'by-cloud', ifname: 'lan', authmodel: 'cloudportal', authtime: 1, authtime_unit: 'hours' });
  expect(added.success, JSON.stringify(added)).toBe(true);
}, 900_000);
afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  cloud?.closeAllConnections();
  await new Promise((resolve) => (cloud ? cloud.close(resolve) : resolve(undefined)));
});

/** Where the gateway sends a captive request for another site (as a browser's first request would be). */
function captiveLocation(): Promise<string> {
  const portal = new URL(daemon.portalUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: portal.hostname, port: portal.port, path: '/page?q=1', headers: { host: 'example.com' } }, (res) => {
      res.resume();
      resolve(String(res.headers.location ?? ''));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a failed return from an outside sign-in', () => {
  test('the cloud denies the sign-in: the guest lands on the portal page, which shows the translated message', async () => {
    const login = await captiveLocation();
    expect(login.startsWith(`http://127.0.0.1:${cloudPort}/login?`), login).toBe(true);
    const { context, page } = await newPage(browser);
    await page.goto(login);
    await page.waitForURL(/\/auth\/portal\?error=portal\.error\.authFailed$/);
    await expect.poll(() => page.getByTestId('auth-returned-error').textContent()).toBe(enUS.error.authFailed);
    expect(await page.content()).not.toContain('"success":false');
    const online = (await api.get('hotspot/online')).data as { items: unknown[] };
    expect(online.items).toEqual([]);
    await context.close();
  });
});
