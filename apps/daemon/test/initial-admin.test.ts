import { describe, expect, test } from 'vitest';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PASSWORD_PATTERN } from '@portico/schema';
import { randomPassword } from '../src/plugins/initial-admin.js';
import { createScryptHasher } from '../src/plugins/password-hash.js';
import { json, login, startDaemon, tempDir } from './daemon-harness.js';

describe('first start', () => {
  test('creates admin with a random password, announced once and written 0600; a restart keeps it', async () => {
    const stateDir = tempDir();
    try {
      const h = await startDaemon({ stateDir });
      expect(h.announced).toHaveLength(1);
      const file = join(stateDir, 'initial-admin-password');
      expect(h.announced[0]).toBe(`Initial admin password: ${h.initialPassword} (also in ${file})`);
      expect(h.initialPassword).toMatch(/^[A-Za-z0-9]{16}$/);
      expect(readFileSync(file, 'utf8').trim()).toBe(h.initialPassword);
      expect(statSync(file).mode & 0o777).toBe(0o600);

      const again = await h.restart();
      expect(again.announced).toEqual([]);
      expect(readFileSync(file, 'utf8').trim()).toBe(h.initialPassword);
      const client = await login(again.app, 'admin', h.initialPassword!);
      const profile = json(await again.app.inject({ method: 'GET', url: '/api/islogin', headers: { cookie: client.cookie } }));
      expect(profile.data).toMatchObject({ username: 'admin', privilege: 0, mustChangePassword: true });
      await again.app.close();
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  test('each installation gets its own password', async () => {
    const a = await startDaemon();
    const b = await startDaemon();
    expect(a.initialPassword).not.toBe(b.initialPassword);
    await a.close();
    await b.close();
  });

  test('generated passwords satisfy the password rules and are not repeated', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const pw = randomPassword();
      expect(pw).toMatch(PASSWORD_PATTERN);
      expect(pw).toHaveLength(16);
      seen.add(pw);
    }
    expect(seen.size).toBe(200);
  });
});

describe('password hashing', () => {
  test('scrypt N=2^15, r=8, p=1 with a random salt, stored self-describing', async () => {
    const hasher = createScryptHasher();
    const one = await hasher.hash('Secret123');
    const two = await hasher.hash('Secret123');
    expect(one).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(one).not.toBe(two);
    expect(await hasher.verify('Secret123', one)).toBe(true);
    expect(await hasher.verify('Secret124', one)).toBe(false);
    expect(await hasher.verify('Secret123', 'plain-text')).toBe(false);
    // A hash made at another cost still verifies: the parameters travel with it.
    const cheap = await createScryptHasher(10).hash('Secret123');
    expect(await hasher.verify('Secret123', cheap)).toBe(true);
  });
});
