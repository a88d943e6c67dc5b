import { afterAll, beforeAll, expect, test } from 'vitest';
import { adminClient, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { png } from '../../../tests/support/upload-fixtures.js';

/** The daemon's own portal listener serves what the administrator uploaded (not a server built for a test). */

const GUEST = { remoteAddress: '192.168.11.50', headers: { host: '192.168.11.1:2050' } };
let h: Harness;
let admin: Client;


beforeAll(async () => {
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' } });
  admin = await adminClient(h);
  const zone = { action: 'add', name: 'guests', ifname: 'lan', authmodel: 'webportal', authtime: 1, authtime_unit: 'days' };
  expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
});
afterAll(async () => {
  await h?.close();
});

test('an uploaded logo is in the zone data of a guest and served by the portal listener', async () => {
  const boundary = '----portico-logo';
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n`),
    png(960, 640),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const uploaded = await h.app.inject({
    method: 'POST',
    url: '/api/portal/upload/logo',
    payload,
    headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf, 'content-type': `multipart/form-data; boundary=${boundary}` },
    remoteAddress: admin.ip,
  });
  expect(json(uploaded).success).toBe(true);
  const portal = h.app.hotspot.portal;
  const state = json(await portal.inject({ method: 'GET', url: '/portal-api/state', ...GUEST }));
  const logo = (state.data as { zone?: { logo?: string } }).zone?.logo;
  expect(logo).toMatch(/^\/portal-files\/logo\?v=/);
  const served = await portal.inject({ method: 'GET', url: logo!, ...GUEST });
  expect(served.statusCode).toBe(200);
  expect(served.headers['content-type']).toBe('image/png');
  expect(served.rawPayload.equals(png(960, 640))).toBe(true);
  // Still nothing for a file that was never uploaded.
  expect((await portal.inject({ method: 'GET', url: '/portal-files/picture', ...GUEST })).statusCode).toBe(404);
});
