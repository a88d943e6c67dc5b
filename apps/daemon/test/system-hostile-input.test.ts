import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { HOSTILE_STRINGS } from '@portico/schema/testing';
import { adminClient, CONDITION_WAIT, get, json, post, startDaemon, tempDir, type Client, type Harness } from './daemon-harness.js';

/**
 * The hostile-value corpus against the fields of the firmware flow and the licence: the
 * activation code, an imported licence file, the upgrade's keepConfig, and what an update
 * server says (version, image address). Each is refused or stays a value: nothing reaches a
 * file of the device, no address other than http(s) is followed.
 */
const keys = generateKeyPairSync('ed25519');
let manifest: unknown = null;
const requested: string[] = [];
const updates: Server = createServer((req, res) => {
  requested.push(req.url ?? '');
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(manifest));
});

let h: Harness;
let admin: Client;

beforeAll(async () => {
  await new Promise<void>((resolve) => updates.listen(0, '127.0.0.1', resolve));
  const dir = tempDir('portico-hostile-keys-');
  writeFileSync(join(dir, 'k.pem'), keys.publicKey.export({ type: 'spki', format: 'pem' }));
  const url = `http://127.0.0.1:${(updates.address() as AddressInfo).port}/latest.json`;
  h = await startDaemon({ env: { PORTICO_UPDATE_URL: url, PORTICO_FIRMWARE_KEY: join(dir, 'k.pem'), PORTICO_LICENSE_KEY: join(dir, 'k.pem'), PORTICO_LICENSE_URL: url } });
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
  await new Promise((resolve) => updates.close(resolve));
});

/** Every file the daemon keeps for the licence and the firmware flow, as text. */
function keptText(): string {
  const out: string[] = [];
  for (const dir of ['license', 'firmware', join('firmware', 'slots')]) {
    let names: string[] = [];
    try {
      names = readdirSync(join(h.stateDir, dir), { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
    } catch {
      continue;
    }
    for (const name of names) out.push(readFileSync(join(h.stateDir, dir, name), 'latin1'));
  }
  return out.join('\n');
}

describe('hostile values in the system fields', () => {
  test('activation code and licence file: refused or only asked of the server, nothing kept', async () => {
    for (const value of HOSTILE_STRINGS) {
      const reply = json(await post(h.app, admin, '/api/registration', { code: value }));
      // A plain word of letters is a well-formed code: asked of the server, never kept as it is.
      expect(reply.success, JSON.stringify(value)).toBe(/^[A-Za-z0-9-]{8,64}$/.test(value));
      await vi.waitFor(async () => expect(json(await get(h.app, admin, '/api/registration?_=1')).data.attempt?.running ?? false).toBe(false), CONDITION_WAIT);
      const imported = json(await post(h.app, admin, '/api/registration', { action: 'import', license: value }));
      expect(imported.success, JSON.stringify(value)).toBe(false);
    }
    // No licence and no lock was kept from any of them.
    expect(readdirSync(join(h.stateDir, 'license'))).toEqual([]);
  });

  test('keepConfig takes a boolean only', async () => {
    for (const value of HOSTILE_STRINGS.slice(0, 40)) {
      expect(json(await post(h.app, admin, '/api/sysconf/bgupgrade', { keepConfig: value })), JSON.stringify(value)).toMatchObject({
        success: false,
        errors: { keepConfig: expect.any(String) },
      });
    }
  });

  test('an update server offering hostile versions or addresses: connect failed, nothing followed', async () => {
    for (const value of HOSTILE_STRINGS) {
      for (const offer of [
        { version: value, url: 'fw.img', size: 10 },
        { version: '99.0.0', url: value, size: 10 },
      ]) {
        manifest = offer;
        expect(json(await post(h.app, admin, '/api/sysconf/bgcheck', {})).success).toBe(true);
        await vi.waitFor(async () => expect(json(await get(h.app, admin, '/api/sysconf/bgcheck?_=1')).data.running).toBe(false), CONDITION_WAIT);
        const state = json(await get(h.app, admin, '/api/sysconf/bgcheck?_=1')).data;
        if (state.latest) {
          // Taken only as a dotted version and an http(s) address on the server.
          expect(state.latest.version).toMatch(/^\d+(\.\d+)*$/);
        }
      }
    }
    // Only the manifest was ever asked for: no image address was followed by a check.
    expect(new Set(requested)).toEqual(new Set(['/latest.json']));
    expect(keptText()).not.toMatch(/reboot|rm -rf|evil/);
  }, 300_000);
});
