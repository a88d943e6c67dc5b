import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLab, inNs, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { LabDaemon, until } from './lab-daemon.js';

/**
 * kill -9 of the daemon at random points during applies, many times over: the database always
 * passes its integrity check, and the live ruleset is always the old one or the new one —
 * never empty, never half of each (nft -f is one transaction).
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const ROUNDS = Number(process.env.LAB_CRASH_ROUNDS ?? 100);
// A VPN client toggled in and out: its interface joins the ruleset's vpn_ifaces set.
const VPN = 'crash';
const VPN_IFACE = 'vpn-crash';

let lab: Lab;
let gw: LabDaemon;

/** The VPN interfaces in the live ruleset, or null when the product's table is absent. */
function liveBindings(): string[] | null {
  const out = inNs(lab.gw, ['nft', 'list', 'set', 'inet', 'portico', 'vpn_ifaces'], { allowFail: true });
  if (out.status !== 0) return null;
  return [...out.stdout.matchAll(/"([^"]+)"/g)].map((m) => m[1]!).sort();
}

beforeAll(async () => {
  lab = createLab({ clients: 2 });
  gw = new LabDaemon(lab);
  await gw.bootAndSignIn();
}, 60_000);

afterAll(async () => {
  await gw?.dispose();
  lab?.down();
});

describe('kill -9 during apply', () => {
  test(`${ROUNDS} kills at random points: intact database, old-or-new ruleset`, async () => {
    const seen = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      const before = liveBindings();
      expect(before, `round ${round}: ruleset present before the write`).not.toBeNull();
      const list = gw.http('GET', `/api/vpnclient?_=${Date.now()}`).json;
      const existing = list?.data?.items?.find((i: { name: string }) => i.name === VPN);
      const write = existing
        ? { action: 'delete', id: existing.id }
        : { action: 'add', type: 'l2tp', name: VPN, server: '198.51.100.9', username: 'branch', password: 'tunnelpass1' };
      // What the stored configuration says decides the new state (the live one equals it at start).
      const after = existing ? before!.filter((i) => i !== VPN_IFACE) : [...before!, VPN_IFACE].sort();
      // Fire the write, then kill at a random moment around its apply (the client needs some
      // tens of milliseconds to start; the apply itself takes about as long).
      gw.fire('POST', '/api/vpnclient', write);
      await new Promise((r) => setTimeout(r, 60 + Math.floor(Math.random() * 440)));
      await gw.stop('SIGKILL');
      const live = liveBindings();
      expect([JSON.stringify(before), JSON.stringify(after)], `round ${round}: live ${JSON.stringify(live)}`).toContain(JSON.stringify(live));
      seen.add(JSON.stringify(live) === JSON.stringify(before) ? 'old' : 'new');

      const db = new Database(join(gw.stateDir, 'portico.db'), { readonly: true, fileMustExist: true });
      try {
        expect(db.pragma('integrity_check', { simple: true }), `round ${round}`).toBe('ok');
      } finally {
        db.close();
      }
      gw.start();
      await until(() => gw.http('GET', '/api/changelang', undefined, 1000).status === 200, 20);
    }
    // The kills landed on both sides of the apply: some writes made it, some did not.
    expect([...seen].sort(), 'outcomes').toEqual(['new', 'old']);
  }, 600_000);
});
