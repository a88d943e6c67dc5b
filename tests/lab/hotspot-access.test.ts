import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotPortal, hotspotWhitelist, hotspotZone, networkInterface, type AnyEntity } from '@portico/schema';
import { inNs, SERVER_ADDRESS, type Lab, setClientAddress } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { createLabGateway, row, type LabGateway } from './lab-gateway.js';
import { startPortalListener, type PortalListener } from './hotspot-portal-listener-run.js';

/**
 * The hotspot's ruleset and data plane with real clients: unauthorised web requests land on
 * the real portal listener (the daemon's engine and portal server, bundled and run in the
 * gateway namespace), everything else they send is dropped, a portal login opens the
 * internet, and logging out closes it again.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let gateway: LabGateway;
let lab: Lab;
let portalListener: PortalListener | undefined;
const work = mkdtempSync(join(tmpdir(), 'portico-lab-portal-'));
const entity = (e: unknown) => e as AnyEntity;

const snapshot = () => ({
  networkInterface: [
    row(entity(networkInterface), 'wan1', { ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1' }),
    row(entity(networkInterface), 'lan', { ifname: 'lan', role: 'lan', hwport: ['lanp1', 'lanp2'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' }),
  ],
  hotspotZone: [row(entity(hotspotZone), 'z1', { name: 'guests', ifname: 'lan', authmodel: 'webportal', authtime: 1, authtime_unit: 'days' })],
  hotspotPortal: [{ id: '', data: hotspotPortal.schema.parse({ methods: ['onekey'] }) as Record<string, unknown> }],
  hotspotWhitelist: [row(entity(hotspotWhitelist), 'w1', { type: 'mac', value: '02:00:00:00:00:00' })],
});


beforeAll(async () => {
  gateway = createLabGateway({ clients: 2 });
  lab = gateway.lab;
  await gateway.apply(snapshot());
  // The engine and portal listener from the daemon's sources, run inside the gateway namespace.
  portalListener = await startPortalListener(lab.gw, work, { snapshot: snapshot() });
  setClientAddress(lab, 0, '192.168.11.20');
  setClientAddress(lab, 1, '192.168.11.21');
});

afterAll(async () => {
  await portalListener?.stop();
  await gateway?.down();
  rmSync(work, { recursive: true, force: true });
});

const wget = (ns: string, url: string) => inNs(ns, ['busybox', 'wget', '-q', '-O', '-', url], { allowFail: true, timeoutMs: 6000 }).stdout;
const PORTAL_PAGE = '<div id="portal"';

function portalPost(ns: string, path: string, body: unknown): any {
  const out = inNs(ns, ['curl', '-s', '-m', '5', '-H', 'content-type: application/json', '-d', JSON.stringify(body), `http://192.168.11.1:2050/portal-api/${path}`], { allowFail: true, timeoutMs: 8000 }).stdout;
  return out ? JSON.parse(out) : undefined;
}

/** Bytes the data path counted for an address, in one direction (-1: no element). */
function countedBytes(ip: string, set: 'hs_acct_up' | 'hs_acct_down'): number {
  const listing = inNs(lab.gw, ['nft', 'list', 'set', 'inet', 'portico', set], { allowFail: true }).stdout;
  const element = new RegExp(`${ip.replace(/\./g, '\\.')} (?:timeout \\S+ )?(?:expires \\S+ )?counter packets \\d+ bytes (\\d+)`).exec(listing);
  return element ? Number(element[1]) : -1;
}

describe('hotspot access control', () => {
  test('unauthorised: HTTP lands on the portal listener, other traffic is dropped; after a portal login the internet opens', async () => {
    const cl = lab.clients[0]!;
    let first = '';
    for (let i = 0; i < 15 && !first.includes(PORTAL_PAGE); i++) {
      first = wget(cl.ns, `http://${SERVER_ADDRESS}/`);
      if (!first) await new Promise((r) => setTimeout(r, 300));
    }
    // The redirect was followed to the portal app the listener serves.
    expect(first).toContain(PORTAL_PAGE);
    // Not HTTP: a TCP connection to another port upstream does not get through.
    const other = inNs(cl.ns, ['busybox', 'nc', '-w', '2', SERVER_ADDRESS, '8443'], { allowFail: true, timeoutMs: 5000, input: '' });
    expect(other.status).not.toBe(0);
    const ping = inNs(cl.ns, ['ping', '-c', '1', '-W', '1', SERVER_ADDRESS], { allowFail: true, timeoutMs: 4000 });
    expect(ping.status).not.toBe(0);

    expect(portalPost(cl.ns, 'login', { method: 'onekey' })).toMatchObject({ success: false, errors: { acceptTerms: 'validation.required' } });
    const login = portalPost(cl.ns, 'login', { method: 'onekey', acceptTerms: true });
    expect(login.success, JSON.stringify(login)).toBe(true);
    expect(wget(cl.ns, `http://${SERVER_ADDRESS}/`)).toContain('upstream-ok');
    // The other client is still held at the portal.
    expect(wget(lab.clients[1]!.ns, `http://${SERVER_ADDRESS}/`)).toContain(PORTAL_PAGE);
    // Its traffic was counted, both ways, on its address's elements.
    expect(countedBytes('192.168.11.20', 'hs_acct_up')).toBeGreaterThan(0);
    expect(countedBytes('192.168.11.20', 'hs_acct_down')).toBeGreaterThan(0);

    expect(portalPost(cl.ns, 'logout', {})).toEqual({ success: true, data: {} });
    expect(wget(cl.ns, `http://${SERVER_ADDRESS}/`)).toContain(PORTAL_PAGE);
  }, 60_000);
});
