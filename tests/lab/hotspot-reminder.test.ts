import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotPlan, hotspotPortal, hotspotReminder, hotspotZone, networkInterface, type AnyEntity } from '@portico/schema';
import { inNs, SERVER_ADDRESS, type Lab, setClientAddress } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { createLabGateway, row, type LabGateway } from './lab-gateway.js';
import { startPortalListener, type PortalListener } from './hotspot-portal-listener-run.js';

/**
 * The remote expiration reminder with real clients: a signed-in client whose plan is about to
 * run out is put into the reminder set by the engine's accounting round, its next plain web
 * request to an outside server is answered by the portal listener with the expiry notice, the
 * request after that reaches the server, and a client with time to spare is never redirected.
 * The engine, its nft reminder set and the portal listener run from the daemon's sources in
 * the gateway namespace; the test triggers the accounting rounds itself.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let gateway: LabGateway;
let lab: Lab;
let listener: PortalListener | undefined;
const work = mkdtempSync(join(tmpdir(), 'portico-lab-reminder-'));
const PORTAL = 'http://192.168.11.1:2050';
const entity = (e: unknown) => e as AnyEntity;
const singleton = (e: AnyEntity, input: Record<string, unknown>) => [{ id: '', data: e.schema.parse(input) as Record<string, unknown> }];

/** Local accounts of the lab and their plans: one about to end (reminders on), one with a day left. */
const ACCOUNTS: Record<string, { password: string; plan: string }> = {
  carol: { password: 'Carol2025', plan: 'ending' },
  dave: { password: 'Dave20255', plan: 'daylong' },
};
const REMINDED_IP = '192.168.11.20';
const SPARED_IP = '192.168.11.21';

const snapshot = () => ({
  networkInterface: [
    row(entity(networkInterface), 'wan1', { ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1' }),
    row(entity(networkInterface), 'lan', { ifname: 'lan', role: 'lan', hwport: ['lanp1', 'lanp2'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' }),
  ],
  hotspotZone: [row(entity(hotspotZone), 'z1', { name: 'guests', ifname: 'lan', authmodel: 'webportal', authtime: 1, authtime_unit: 'days' })],
  hotspotPortal: singleton(entity(hotspotPortal), { methods: ['local'] }),
  // One hour of validity and a 60-minute reminder lead: within the threshold from the start.
  hotspotPlan: [
    row(entity(hotspotPlan), 'p1', { name: 'ending', effecttime: 1, effectunit: 'hours', remind: true, remind_time: 60, remind_flow: 1 }),
    row(entity(hotspotPlan), 'p2', { name: 'daylong', effecttime: 1, effectunit: 'days', remind: false }),
  ],
  hotspotReminder: singleton(entity(hotspotReminder), { enabled: true, port: 80, interval: 24, content: ['Your plan ends soon: renew it at the front desk.'] }),
});


async function accountingRound(): Promise<void> {
  await listener!.tick();
}

async function reminderList(): Promise<{ ip: string; username: string; state: string }[]> {
  return listener!.reminderList();
}

beforeAll(async () => {
  gateway = createLabGateway({ clients: 2 });
  lab = gateway.lab;
  await gateway.apply(snapshot());
  listener = await startPortalListener(lab.gw, work, { snapshot: snapshot(), accounts: ACCOUNTS, manual: true });
  setClientAddress(lab, 0, REMINDED_IP);
  setClientAddress(lab, 1, SPARED_IP);
}, 120_000);

afterAll(async () => {
  await listener?.stop();
  await gateway?.down();
  rmSync(work, { recursive: true, force: true });
});

function curl(n: number, args: string[]) {
  return inNs(lab.clients[n]!.ns, ['curl', '-s', '-m', '4', ...args], { allowFail: true, timeoutMs: 8000 });
}

/** Where a plain HTTP request lands: the status, the redirect target and the body. */
function visit(n: number, url: string): { status: string; location: string; body: string } {
  const lines = curl(n, ['-w', '\n%{http_code} %{redirect_url}', url]).stdout.trimEnd().split('\n');
  const [status = '000', location = ''] = (lines.pop() ?? '').split(' ');
  return { status, location, body: lines.join('\n') };
}

function login(n: number, username: string): any {
  const { password } = ACCOUNTS[username]!;
  const out = curl(n, ['-H', 'content-type: application/json', '-d', JSON.stringify({ method: 'local', username, password, acceptTerms: true }), `${PORTAL}/portal-api/login`]).stdout;
  return out ? JSON.parse(out) : undefined;
}

const remindSet = () => inNs(lab.gw, ['nft', 'list', 'set', 'inet', 'portico', 'hs_remind'], { allowFail: true }).stdout;

async function reachesUpstream(n: number, path = '/'): Promise<boolean> {
  for (let i = 0; i < 10; i++) {
    if (visit(n, `http://${SERVER_ADDRESS}${path}`).body.includes('upstream-ok')) return true;
    await new Promise((r) => setTimeout(r, 300));
  }
  return false;
}

describe('remote expiration reminder', () => {
  test('a client near its plan end is sent to the notice once, then passes; a client with time left never is', async () => {
    for (const [n, username] of [
      [0, 'carol'],
      [1, 'dave'],
    ] as const) {
      const reply = login(n, username);
      expect(reply?.success, JSON.stringify(reply)).toBe(true);
      expect(await reachesUpstream(n)).toBe(true);
    }
    // Before an accounting round nobody is reminded.
    expect(remindSet()).not.toContain(REMINDED_IP);
    expect(await reminderList()).toEqual([]);

    await accountingRound();
    const set = remindSet();
    expect(set).toContain(REMINDED_IP);
    expect(set).not.toContain(SPARED_IP);
    expect(await reminderList()).toMatchObject([{ ip: REMINDED_IP, username: 'carol', state: 'awaiting' }]);

    // The client with a day left is not redirected, before or after the reminded one is.
    expect(visit(1, `http://${SERVER_ADDRESS}/`).body).toContain('upstream-ok');

    const original = `http://${SERVER_ADDRESS}/page?x=1`;
    const reminded = visit(0, original);
    expect(reminded.status).toBe('302');
    expect(reminded.location).toBe(`${PORTAL}/notice/expired?url=${encodeURIComponent(original)}`);
    // Shown once: out of the set, and the next request reaches the outside server.
    expect(await reminderList()).toMatchObject([{ ip: REMINDED_IP, state: 'shown' }]);
    expect(remindSet()).not.toContain(REMINDED_IP);
    const after = visit(0, `http://${SERVER_ADDRESS}/`);
    expect(after.status).toBe('200');
    expect(after.body).toContain('upstream-ok');

    // Further rounds within the interval remind nobody again, and nobody is redirected.
    await accountingRound();
    expect(remindSet()).not.toContain(REMINDED_IP);
    for (const n of [0, 1]) {
      const seen = visit(n, `http://${SERVER_ADDRESS}/`);
      expect(seen.status).toBe('200');
      expect(seen.body).toContain('upstream-ok');
    }
  }, 90_000);
});
