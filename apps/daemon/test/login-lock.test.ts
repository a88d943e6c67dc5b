import { afterEach, describe, expect, test } from 'vitest';
import { rmSync } from 'node:fs';
import { CountingHasher, json, post, startDaemon, tempDir, type Harness } from './daemon-harness.js';

const harnesses: Harness[] = [];
async function daemon(...args: Parameters<typeof startDaemon>): Promise<Harness> {
  const h = await startDaemon(...args);
  harnesses.push(h);
  return h;
}
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.app.close();
});

const wrong = (h: Harness, ip = '127.0.0.1') =>
  h.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'admin', password: 'Wrong12345' }, remoteAddress: ip }).then(json);
const right = (h: Harness, ip = '127.0.0.1') =>
  h.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'admin', password: h.initialPassword }, remoteAddress: ip }).then(json);

describe('login lock (spec §6: 5 wrong passwords, 5 minutes)', () => {
  test('the fifth wrong password locks; the sixth try is refused even with the right password', async () => {
    const h = await daemon();
    for (let i = 0; i < 4; i++) expect(await wrong(h)).toEqual({ success: false, msg: 'msg.loginWrong' });
    expect(await wrong(h)).toEqual({ success: false, msg: 'msg.loginLocked', data: { retryAfter: 300 } });
    const checks = h.hasher.verifications;
    const sixth = await right(h);
    expect(sixth).toEqual({ success: false, msg: 'msg.loginLocked', data: { retryAfter: 300 } });
    // A locked key is answered without hashing.
    expect(h.hasher.verifications).toBe(checks);

    h.clock.advance(120);
    expect((await right(h)).data).toEqual({ retryAfter: 180 });
    h.clock.advance(179);
    expect((await right(h)).msg).toBe('msg.loginLocked');
    h.clock.advance(1);
    expect((await right(h)).success).toBe(true);
  });

  test('after the lock runs out the count starts afresh', async () => {
    const h = await daemon();
    for (let i = 0; i < 5; i++) await wrong(h);
    h.clock.advance(300);
    for (let i = 0; i < 4; i++) expect((await wrong(h)).msg).toBe('msg.loginWrong');
    expect((await right(h)).success).toBe(true);
  });

  test('a success resets the count', async () => {
    const h = await daemon();
    for (let i = 0; i < 4; i++) await wrong(h);
    expect((await right(h)).success).toBe(true);
    for (let i = 0; i < 4; i++) expect((await wrong(h)).msg).toBe('msg.loginWrong');
  });

  test('the lock is per account and source address', async () => {
    const h = await daemon();
    for (let i = 0; i < 5; i++) await wrong(h, '10.0.0.1');
    expect((await right(h, '10.0.0.1')).msg).toBe('msg.loginLocked');
    expect((await right(h, '10.0.0.2')).success).toBe(true);
    const other = await h.app
      .inject({ method: 'POST', url: '/api/login', payload: { username: 'someone', password: 'Wrong12345' }, remoteAddress: '10.0.0.1' })
      .then(json);
    expect(other.msg).toBe('msg.loginWrong');
  });

  test('the lock survives a daemon restart on the same database', async () => {
    const stateDir = tempDir();
    try {
      const h = await daemon({ stateDir });
      for (let i = 0; i < 5; i++) await wrong(h);
      const restarted = await h.restart();
      harnesses.push(restarted);
      restarted.initialPassword = h.initialPassword;
      expect((await right(restarted)).msg).toBe('msg.loginLocked');
      restarted.clock.advance(301);
      expect((await right(restarted)).success).toBe(true);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  test('1,000 parallel wrong tries check at most 5 passwords', async () => {
    const hasher = new CountingHasher();
    const h = await daemon({ hasher });
    hasher.verifications = 0;
    const answers = await Promise.all(Array.from({ length: 1000 }, () => wrong(h)));
    expect(hasher.verifications).toBeLessThanOrEqual(5);
    expect(answers.every((a) => a.success === false)).toBe(true);
    expect(answers.filter((a) => a.msg === 'msg.loginLocked').length).toBeGreaterThanOrEqual(995);
    // And the account is locked for real afterwards.
    expect((await right(h)).msg).toBe('msg.loginLocked');
    expect(hasher.verifications).toBeLessThanOrEqual(5);
  });

  test('guessing the current password in changepwd counts against the same lock', async () => {
    const h = await daemon();
    const session = await h.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'admin', password: h.initialPassword } });
    const cookie = `portico_sid=${session.cookies.find((c) => c.name === 'portico_sid')!.value}`;
    const csrf = json(session).data.csrf;
    const attempt = () =>
      post(h.app, { cookie, csrf, username: 'admin', ip: '127.0.0.1' }, '/api/changepwd', {
        oldpassword: 'Guess12345',
        password: 'NewPass123',
        confirm: 'NewPass123',
      }).then(json);
    for (let i = 0; i < 5; i++) expect((await attempt()).errors).toEqual({ oldpassword: 'validation.password.wrong' });
    expect((await attempt()).msg).toBe('msg.loginLocked');
  });
});
