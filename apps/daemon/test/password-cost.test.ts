import { afterEach, describe, expect, test } from 'vitest';
import { createScryptHasher } from '../src/plugins/password-hash.js';
import { json, post, startDaemon, type Harness } from './daemon-harness.js';
import { fromClient, portalLogin, startHotspotDaemon } from './hotspot-fixture.js';

/**
 * A password hash whose scrypt cost is above the daemon's own (from a restored backup or a
 * copied database) never verifies: one sign-in must not cost seconds of CPU. The daemon under
 * test hashes at ln=10 (daemon-harness), so a hash made at ln=11, or with a larger r or p, is
 * above its cost.
 */

const ABOVE = [
  ['N', () => createScryptHasher(11, 8, 1)],
  ['r', () => createScryptHasher(10, 9, 1)],
  ['p', () => createScryptHasher(10, 8, 2)],
] as const;

describe('the hasher', () => {
  test.each(ABOVE)('refuses a hash of a larger %s, even for the right password', async (_name, make) => {
    const own = createScryptHasher(10, 8, 1);
    const costly = await make().hash('Secret123');
    expect(await own.verify('Secret123', costly)).toBe(false);
    // The same hasher at that cost checks it: the refusal is the cost, not the hash.
    expect(await make().verify('Secret123', costly)).toBe(true);
  });

  test('a hash of a lower cost still verifies', async () => {
    expect(await createScryptHasher(11, 8, 1).verify('Secret123', await createScryptHasher(10, 8, 1).hash('Secret123'))).toBe(true);
  });
});

describe('sign-ins against stored hashes above the daemon cost', () => {
  const daemons: Harness[] = [];
  afterEach(async () => {
    for (const h of daemons.splice(0)) await h.close();
  });

  test('an administrator account', async () => {
    const h = await startDaemon();
    daemons.push(h);
    const { accounts } = h.app.appContext;
    const admin = accounts.byUsername('admin')!;
    accounts.update(admin.id, { passwordHash: await createScryptHasher(11).hash('Costly2025') });
    const reply = await h.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'admin', password: 'Costly2025' } });
    expect(json(reply)).toEqual({ success: false, msg: 'msg.loginWrong' });
  });

  test('a hotspot local user, on the portal and in self-service', async () => {
    const { h, admin, portal } = await startHotspotDaemon();
    daemons.push(h);
    const user = { action: 'add', username: 'alice', password: 'Secret123', confirm: 'Secret123', usernum: 0 };
    expect(json(await post(h.app, admin, '/api/auth/userauth', user)).success).toBe(true);
    const costly = await createScryptHasher(10, 8, 2).hash('Secret123');
    h.app.appContext.db.prepare('UPDATE hotspot_local_users SET password_hash = ? WHERE username = ?').run(costly, 'alice');
    expect(await portalLogin(portal, '192.168.11.30', { method: 'local', username: 'alice', password: 'Secret123' })).toEqual({ success: false, msg: 'portal.error.userOrPassword' });
    const selfService = await portal.inject({ method: 'POST', url: '/portal-api/user/login', payload: { username: 'alice', password: 'Secret123' }, ...fromClient('192.168.11.31') });
    expect(json(selfService)).toEqual({ success: false, msg: 'portal.error.userOrPassword' });
  });
});
