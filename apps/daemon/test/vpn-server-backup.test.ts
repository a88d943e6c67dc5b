import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { BACKUP_URL, RecordingApplier, upload } from './maintain-fixture.js';
import { runCommand } from '../src/engine/command-runner.js';

const PASSPHRASE = 'move-the-vpn-2025';

async function device(): Promise<{ h: Harness; admin: Client }> {
  const h = await startDaemon({
    deps: {
      config: { applier: new RecordingApplier() },
      maintain: { schedule: () => () => undefined, run: async () => ({ exitCode: 0, stdout: '', stderr: '' }) },
    },
  });
  return { h, admin: await adminClient(h) };
}

const pki = (h: Harness) => join(h.stateDir, 'vpn-server/openvpn-pki');

describe('the OpenVPN PKI in a backup', () => {
  test('moves to another device: the CA, the clients with their keys and the revocations come along', async () => {
    const { h: a, admin: adminA } = await device();
    const { h: b, admin: adminB } = await device();
    try {
      for (const name of ['alice', 'bob']) expect(json(await post(a.app, adminA, '/api/auth/openvpn/clients', { action: 'add', name })).success).toBe(true);
      expect(json(await post(a.app, adminA, '/api/auth/openvpn/clients', { action: 'revoke', name: 'bob' })).success).toBe(true);
      const res = await post(a.app, adminA, BACKUP_URL, { action: 'download', passphrase: PASSPHRASE });
      expect(res.statusCode).toBe(200);
      // Keys travel sealed: no PEM key text is readable in the archive.
      expect(res.rawPayload.includes(Buffer.from('PRIVATE KEY'))).toBe(false);
      const reply = json(await upload(b.app, adminB, res.rawPayload, PASSPHRASE));
      expect(reply.success, JSON.stringify(reply)).toBe(true);

      expect(readFileSync(join(pki(b), 'ca.crt'), 'utf8')).toBe(readFileSync(join(pki(a), 'ca.crt'), 'utf8'));
      expect(readFileSync(join(pki(b), 'clients/alice.key'), 'utf8')).toBe(readFileSync(join(pki(a), 'clients/alice.key'), 'utf8'));
      const items = json(await get(b.app, adminB, '/api/auth/openvpn/clients')).data.items as Array<{ name: string; status: string }>;
      expect(items.map((c) => [c.name, c.status])).toEqual([['alice', 'valid'], ['bob', 'revoked']]);
      expect(json(await post(b.app, adminB, '/api/auth/openvpn/clients', { action: 'revoke', name: 'bob' }))).toMatchObject({ msg: 'msg.openvpn.alreadyRevoked' });
      // The restored CA signs new clients at once, without a restart.
      expect(json(await post(b.app, adminB, '/api/auth/openvpn/clients', { action: 'add', name: 'carol' })).success).toBe(true);
      const carol = json(await get(b.app, adminB, '/api/rsa')).data.items.find((c: { name: string }) => c.name === 'carol');
      expect(carol.status).toBe('valid');
      const text = (await runCommand(['openssl', 'crl', '-noout', '-text', '-in', join(pki(b), 'crl.pem')])).stdout;
      expect(text.match(/Serial Number/g)).toHaveLength(1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a factory reset removes every client and key; a new CA is made when next needed', async () => {
    const { h, admin } = await device();
    try {
      expect(json(await post(h.app, admin, '/api/auth/openvpn/clients', { action: 'add', name: 'alice' })).success).toBe(true);
      const before = readFileSync(join(pki(h), 'ca.crt'), 'utf8');
      expect(json(await post(h.app, admin, BACKUP_URL, { reset: 1 })).success).toBe(true);
      expect(existsSync(pki(h))).toBe(false);
      expect(h.app.appContext.db.prepare('SELECT count(*) AS n FROM openvpn_clients').get()).toEqual({ n: 0 });
      const restarted = await h.restart();
      try {
        expect(readFileSync(join(pki(restarted), 'ca.crt'), 'utf8')).not.toBe(before);
      } finally {
        await restarted.close();
      }
    } finally {
      await h.close();
    }
  });
});
