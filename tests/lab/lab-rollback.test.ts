import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLab, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { LabDaemon, until } from './lab-daemon.js';

/**
 * Apply with rollback for real: the built daemon runs in the gateway namespace with the linux
 * driver and a factory LAN; the administrator is a LAN client. A change that moves the LAN
 * address cuts the administrator off; unconfirmed, it is put back within the deadline + 5 s,
 * also when the daemon is restarted inside the window.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const CONFIRM_SECONDS = 10;

let lab: Lab;
let gw: LabDaemon;
const http = (method: string, path: string, body?: unknown, timeoutMs?: number) => gw.http(method, path, body, timeoutMs);
const lanAddress = () => gw.lanAddress();

async function moveLan(): Promise<void> {
  const list = http('GET', `/api/network?_=${Date.now()}`).json;
  const lan = list.data.items.find((i: { ifname: string }) => i.ifname === 'lan');
  // The answer is lost with the address it was sent to: do not wait long for it.
  const reply = http('POST', '/api/network', { action: 'update', id: lan.id, ipaddr: '192.168.12.1' }, 1500);
  if (reply.status === 200) expect(reply.json.data.confirm.seconds).toBe(CONFIRM_SECONDS);
  await until(() => lanAddress().includes('192.168.12.1/24'), 3);
}

beforeAll(async () => {
  lab = createLab({ clients: 2 });
  gw = new LabDaemon(lab, { PORTICO_CONFIRM_SECONDS: String(CONFIRM_SECONDS) });
  await gw.bootAndSignIn();
}, 60_000);

afterAll(async () => {
  await gw?.dispose();
  lab?.down();
});

describe('apply with rollback on the linux driver', () => {
  test('the factory LAN serves the console to a LAN client', () => {
    expect(http('GET', '/api/islogin').json.data.username).toBe('admin');
  });

  test('an unconfirmed change that cuts the administrator off is reverted within the deadline + 5 s', async () => {
    await moveLan();
    expect(http('GET', '/api/islogin', undefined, 1000).status).toBe(0); // cut off: the old address is gone
    const waited = await until(() => lanAddress().includes('192.168.11.1/24'), CONFIRM_SECONDS + 5);
    expect(waited).toBeLessThanOrEqual(CONFIRM_SECONDS + 5);
    expect(lanAddress()).not.toContain('192.168.12.1');
    await until(() => http('GET', '/api/islogin').status === 200, 5);
  });

  test('it is reverted too when the daemon is killed and restarted inside the window', async () => {
    await moveLan();
    const movedAt = Date.now();
    await gw.stop('SIGKILL');
    gw.start();
    await until(() => lanAddress().includes('192.168.11.1/24'), CONFIRM_SECONDS + 15);
    expect((Date.now() - movedAt) / 1000).toBeLessThanOrEqual(CONFIRM_SECONDS + 5 + 3);
    await until(() => http('GET', '/api/islogin').status === 200, 10);
    expect(http('GET', '/api/islogin').json.data.username).toBe('admin');
  });
});
