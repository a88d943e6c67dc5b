import { afterEach, describe, expect, test, vi } from 'vitest';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { defineEntity, type AnyEntity } from '@portico/schema';
import { registerEntityRoutes } from '../src/config/entity-routes.js';
import type { ConfigApplier, ConfigSnapshot, Scheduler } from '../src/config/config-types.js';
import { readSummary } from '../src/config/journal-summary.js';
import { adminClient, CONDITION_WAIT, get, json, login, post, startDaemon, tempDir, TestClock, type Client, type Harness } from './daemon-harness.js';

/** An interface-like entity: a write can cut the administrator off. */
const sampleLink = defineEntity({
  name: 'sampleLink',
  path: 'sample/link',
  module: 'interface',
  kind: 'collection',
  schema: z.object({ id: z.string(), name: z.string().min(1).max(15), address: z.string().min(1) }),
  list: { columns: [{ field: 'name' }, { field: 'address' }] },
  cutsAccess: true,
}) as unknown as AnyEntity;

/** A port-mapping-like entity: applied at once, no confirmation. */
const sampleRule = defineEntity({
  name: 'sampleRule',
  path: 'sample/rule',
  module: 'portmapping',
  kind: 'collection',
  schema: z.object({ id: z.string(), name: z.string().min(1), port: z.number().int().min(1).max(65535) }),
  list: { columns: [{ field: 'name' }, { field: 'port' }] },
}) as unknown as AnyEntity;

const DOMAINS = [
  { name: 'links', entities: ['sampleLink'] },
  { name: 'mapping', entities: ['sampleRule'] },
];

/** An applier that records its calls, can be told to fail, and can look around while applying. */
class ScriptedApplier implements ConfigApplier {
  calls: Array<{ domains: string[]; snapshot: ConfigSnapshot }> = [];
  failures: Error[] = [];
  during?: () => void;
  async apply(domains: readonly string[], snapshot: ConfigSnapshot): Promise<void> {
    this.calls.push({ domains: [...domains], snapshot });
    this.during?.();
    const failure = this.failures.shift();
    if (failure) throw failure;
  }
}

/** Timers a test fires by hand. */
class ManualScheduler {
  jobs: Array<{ ms: number; work: () => void; cancelled: boolean }> = [];
  schedule: Scheduler = (ms, work) => {
    const job = { ms, work, cancelled: false };
    this.jobs.push(job);
    return () => {
      job.cancelled = true;
    };
  };
  live() {
    return this.jobs.filter((j) => !j.cancelled);
  }
  fire(): void {
    const [job, ...others] = this.live();
    expect(others).toHaveLength(0);
    job!.cancelled = true;
    job!.work();
  }
}

interface Rig {
  h: Harness;
  admin: Client;
  applier: ScriptedApplier;
  timers: ManualScheduler;
}

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close().catch(() => undefined);
});

async function boot(env: Record<string, string> = {}, options: { realTimers?: boolean } = {}): Promise<Rig> {
  const applier = new ScriptedApplier();
  const timers = new ManualScheduler();
  const h = await startDaemon({
    env,
    stateDir: tempDir(),
    clock: new TestClock(),
    deps: { config: { applier, domains: DOMAINS, ...(options.realTimers ? {} : { schedule: timers.schedule }) } },
    beforeReady: (app) => registerEntityRoutes(app, app.appContext, [sampleLink, sampleRule]),
  });
  open.push(h);
  return { h, admin: await adminClient(h), applier, timers };
}

async function restart(rig: Rig): Promise<Harness> {
  const next = await rig.h.restart();
  open.push(next);
  return next;
}

const write = (h: Harness, client: Client | null, url: string, payload: object) => post(h.app, client, url, payload).then(json);
const names = async (h: Harness, client: Client, url = '/api/sample/link') =>
  json(await get(h.app, client, url)).data.items.map((r: { name: string; address?: string; port?: number }) => `${r.name}=${r.address ?? r.port}`);
const confirmStatus = async (h: Harness, client: Client) => json(await get(h.app, client, '/api/sysconf/confirm')).data;
const revisions = (h: Harness) =>
  (h.app.appContext.db.prepare('SELECT id, user, source_ip, summary FROM revisions ORDER BY id').all() as Array<{ id: number; user: string; source_ip: string; summary: string }>).map(
    (row) => ({ ...row, summary: readSummary(row.summary) }),
  );
/** The summary of a write of one row. */
const wrote = (entity: string, action: 'add' | 'update' | 'delete', label: string) => ({ key: 'changes', groups: [{ entity, action, labels: [label] }] });
const lastRevision = (h: Harness) => revisions(h).at(-1)!;
const pendingRows = (h: Harness) => h.app.appContext.db.prepare('SELECT * FROM pending_apply').all();
/** The confirm route as a browser at the device's new address calls it: no session cookie. */
const confirmFrom = (h: Harness, ip: string, payload: object) => h.app.inject({ method: 'POST', url: '/api/sysconf/confirm', payload, remoteAddress: ip }).then(json);

/** Adds `lan` and confirms it, so later tests start from a kept link. */
async function withLan(rig: Rig): Promise<string> {
  const added = await write(rig.h, rig.admin, '/api/sample/link', { action: 'add', name: 'lan', address: '192.168.1.1' });
  expect(await confirmFrom(rig.h, '127.0.0.1', { token: added.data.confirm.token })).toMatchObject({ success: true });
  return added.data.id;
}

describe('apply failures revert automatically', () => {
  test('a failing apply puts the old rows back as a new revision, re-applies them and answers msg.applyFailed', async () => {
    const { h, admin, applier } = await boot();
    const { data } = await write(h, admin, '/api/sample/rule', { action: 'add', name: 'web', port: 8080 });
    applier.calls = [];
    applier.failures.push(new Error('/etc/portico/nftables.nft failed its nft check: syntax error\nline 3: boom'));

    expect(await write(h, admin, '/api/sample/rule', { action: 'update', id: data.id, port: 9090 })).toEqual({ success: false, msg: 'msg.applyFailed' });
    expect(await names(h, admin, '/api/sample/rule')).toEqual(['web=8080']);
    const [write1, revert] = revisions(h).slice(-2);
    expect(write1).toMatchObject({ user: 'admin', summary: wrote('sampleRule', 'update', 'web') });
    expect(revert).toMatchObject({ user: 'system', summary: { key: 'applyFailed', reason: '/etc/portico/nftables.nft failed its nft check: syntax error' } });
    // The failed apply, then the previous configuration applied again.
    expect(applier.calls.map((c) => c.domains)).toEqual([['mapping'], ['mapping']]);
    expect(applier.calls[1]!.snapshot.sampleRule![0]!.data.port).toBe(8080);
    const diff = json(await post(h.app, admin, '/api/sysconf/journal', { action: 'get', id: revert!.id })).data.changes;
    expect(diff).toEqual([expect.objectContaining({ entity: 'sampleRule', action: 'update', fields: ['port'], after: expect.objectContaining({ port: 8080 }) })]);
  });

  test('a failed add or delete is undone too', async () => {
    const { h, admin, applier } = await boot();
    await write(h, admin, '/api/sample/rule', { action: 'add', name: 'web', port: 80 });
    applier.failures.push(new Error('no'));
    expect((await write(h, admin, '/api/sample/rule', { action: 'add', name: 'ssh', port: 22 })).msg).toBe('msg.applyFailed');
    const id = json(await get(h.app, admin, '/api/sample/rule')).data.items[0].id;
    applier.failures.push(new Error('no'));
    expect((await write(h, admin, '/api/sample/rule', { action: 'delete', id })).msg).toBe('msg.applyFailed');
    expect(await names(h, admin, '/api/sample/rule')).toEqual(['web=80']);
  });

  test('a failing apply of a change that needed confirmation leaves nothing pending', async () => {
    const { h, admin, applier, timers } = await boot();
    applier.failures.push(new Error('link down'));
    expect(await write(h, admin, '/api/sample/link', { action: 'add', name: 'lan', address: '10.0.0.1' })).toEqual({ success: false, msg: 'msg.applyFailed' });
    expect(pendingRows(h)).toEqual([]);
    expect(timers.live()).toEqual([]);
    expect(await names(h, admin)).toEqual([]);
    expect(await confirmStatus(h, admin)).toEqual({ pending: false });
  });

  test('writes that arrive during an apply are applied together, one apply at a time', async () => {
    const { h, admin, applier } = await boot();
    let inFlight = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const original = applier.apply.bind(applier);
    applier.apply = async (domains, snapshot) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await original(domains, snapshot);
      if (applier.calls.length === 1) await gate;
      inFlight--;
    };
    const first = write(h, admin, '/api/sample/rule', { action: 'add', name: 'a', port: 1 });
    await vi.waitFor(() => expect(applier.calls).toHaveLength(1), CONDITION_WAIT);
    const rest = [2, 3, 4].map((port) => write(h, admin, '/api/sample/rule', { action: 'add', name: `r${port}`, port }));
    // All three are written (and journalled) before the first apply ends.
    await vi.waitFor(() => expect(revisions(h).filter((r) => r.summary.key === 'changes' && r.summary.groups[0]?.entity === 'sampleRule' && r.summary.groups[0].action === 'add')).toHaveLength(4), CONDITION_WAIT);
    release();
    for (const reply of await Promise.all([first, ...rest])) expect(reply.success).toBe(true);
    expect(most).toBe(1);
    expect(applier.calls).toHaveLength(2);
    expect(applier.calls[1]!.snapshot.sampleRule!.map((r) => r.data.name)).toEqual(['a', 'r2', 'r3', 'r4']);
  });
});

describe('apply with rollback: changes that can cut the administrator off', () => {
  test('the pending state is on disk before the applier runs, and the write answers a one-time token', async () => {
    const { h, admin, applier } = await boot();
    let seen: Record<string, unknown> | undefined;
    applier.during = () => {
      // A second connection sees only what is committed to the database file.
      const other = new Database(join(h.stateDir, 'portico.db'), { readonly: true });
      seen = other.prepare('SELECT * FROM pending_apply').get() as Record<string, unknown> | undefined;
      other.close();
    };
    const reply = await write(h, admin, '/api/sample/link', { action: 'add', name: 'lan', address: '192.168.1.1' });
    expect(reply).toEqual({
      success: true,
      data: {
        id: expect.any(String),
        name: 'lan',
        address: '192.168.1.1',
        confirm: { token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), deadline: h.clock.ms + 90_000, seconds: 90 },
      },
    });
    const { token } = reply.data.confirm;
    const [before, after] = revisions(h).slice(-2);
    expect(seen).toEqual({
      slot: 1,
      revision_before: before!.id,
      revision_after: after!.id,
      token_hash: createHash('sha256').update(token).digest('hex'),
      deadline: h.clock.ms + 90_000,
      created_at: h.clock.ms,
    });
    // Only the hash is kept.
    const dump = JSON.stringify(h.app.appContext.db.prepare('SELECT * FROM revisions').all()) + JSON.stringify(pendingRows(h));
    expect(dump).not.toContain(token);
  });

  test('the console reads the countdown (never the token); a second such change waits, others do not', async () => {
    const { h, admin } = await boot();
    const reply = await write(h, admin, '/api/sample/link', { action: 'add', name: 'lan', address: '192.168.1.1' });
    h.clock.advance(30);
    const res = await get(h.app, admin, '/api/sysconf/confirm');
    expect(res.body).not.toContain(reply.data.confirm.token);
    expect(json(res).data).toEqual({
      pending: true,
      revision: lastRevision(h).id,
      user: 'admin',
      summary: wrote('sampleLink', 'add', 'lan'),
      deadline: reply.data.confirm.deadline,
      seconds: 90,
      secondsLeft: 60,
    });
    const count = revisions(h).length;
    expect(await write(h, admin, '/api/sample/link', { action: 'add', name: 'wan', address: '203.0.113.2' })).toEqual({ success: false, msg: 'msg.confirmPending' });
    expect(await write(h, admin, '/api/sample/link', { action: 'delete', id: reply.data.id })).toEqual({ success: false, msg: 'msg.confirmPending' });
    expect(await write(h, admin, '/api/sysconf/journal', { action: 'revert', id: 1 })).toEqual({ success: false, msg: 'msg.confirmPending' });
    expect(revisions(h)).toHaveLength(count);
    expect((await write(h, admin, '/api/sample/rule', { action: 'add', name: 'web', port: 80 })).success).toBe(true);
    expect(await names(h, admin)).toEqual(['lan=192.168.1.1']);
  });

  test('confirming keeps the change; the token works once, from any address, without a session', async () => {
    const { h, admin, timers } = await boot();
    const reply = await write(h, admin, '/api/sample/link', { action: 'add', name: 'lan', address: '192.168.8.1' });
    const revision = lastRevision(h).id;
    expect(timers.live()).toHaveLength(1);
    const token: string = reply.data.confirm.token;
    // One character changed, and never to the character it already was.
    const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect(await confirmFrom(h, '192.168.8.10', { token: forged })).toEqual({ success: false, msg: 'msg.confirmInvalid' });
    expect(await confirmFrom(h, '192.168.8.10', {})).toEqual({ success: false, msg: 'msg.reviewFields', errors: { token: 'validation.required' } });
    expect(await confirmFrom(h, '192.168.8.10', { token: reply.data.confirm.token })).toEqual({ success: true, data: { revision } });
    expect(await confirmFrom(h, '192.168.8.10', { token: reply.data.confirm.token })).toEqual({ success: false, msg: 'msg.confirmInvalid' });
    expect(await confirmFrom(h, '192.168.8.10', { token: reply.data.confirm.token, action: 'revert' })).toEqual({ success: false, msg: 'msg.confirmInvalid' });
    expect(timers.live()).toEqual([]);
    expect(pendingRows(h)).toEqual([]);
    expect(await confirmStatus(h, admin)).toEqual({ pending: false });
    expect(await names(h, admin)).toEqual(['lan=192.168.8.1']);
    // The next such change can go ahead.
    expect((await write(h, admin, '/api/sample/link', { action: 'add', name: 'wan', address: '203.0.113.2' })).data.confirm).toBeDefined();
  });

  test('revert through the token puts the previous revision back at once', async () => {
    const { h, admin, applier } = await boot();
    const id = await withLan({ h, admin, applier, timers: new ManualScheduler() });
    const reply = await write(h, admin, '/api/sample/link', { action: 'update', id, address: '10.1.1.1' });
    const changed = lastRevision(h).id;
    applier.calls = [];
    const answer = await confirmFrom(h, '10.1.1.50', { token: reply.data.confirm.token, action: 'revert' });
    expect(answer).toEqual({ success: true, data: { revision: changed + 1 } });
    expect(lastRevision(h)).toEqual({ id: changed + 1, user: 'admin', source_ip: '10.1.1.50', summary: { key: 'refused', revision: changed } });
    expect(await names(h, admin)).toEqual(['lan=192.168.1.1']);
    expect(applier.calls.map((c) => c.domains)).toEqual([['links']]);
    expect(await confirmFrom(h, '10.1.1.50', { token: reply.data.confirm.token })).toEqual({ success: false, msg: 'msg.confirmInvalid' });
  });

  test('without confirmation the timer puts the previous revision back at the deadline', async () => {
    const rig = await boot({ PORTICO_CONFIRM_SECONDS: '45' });
    const { h, admin, applier, timers } = rig;
    const id = await withLan(rig);
    await write(h, admin, '/api/sample/rule', { action: 'add', name: 'web', port: 80 });
    const reply = await write(h, admin, '/api/sample/link', { action: 'update', id, address: '10.7.7.1' });
    expect(reply.data.confirm.seconds).toBe(45);
    expect(timers.live().map((j) => j.ms)).toEqual([45_000]);
    // A write to another entity during the window is kept by the revert.
    await write(h, admin, '/api/sample/rule', { action: 'add', name: 'dns', port: 53 });
    applier.calls = [];
    h.clock.advance(45);
    timers.fire();
    await vi.waitFor(() => expect(applier.calls).toHaveLength(1), CONDITION_WAIT);
    expect(applier.calls[0]!.domains).toEqual(['links']);
    expect(lastRevision(h)).toMatchObject({ user: 'system', summary: { key: 'notConfirmed' } });
    expect(await names(h, admin)).toEqual(['lan=192.168.1.1']);
    expect(await names(h, admin, '/api/sample/rule')).toEqual(['web=80', 'dns=53']);
    expect(pendingRows(h)).toEqual([]);
    expect(await confirmFrom(h, '127.0.0.1', { token: reply.data.confirm.token })).toEqual({ success: false, msg: 'msg.confirmInvalid' });
  });

  test('with the real timer and a short window, the change is reverted by itself', async () => {
    const { h, admin } = await boot({ PORTICO_CONFIRM_SECONDS: '1' }, { realTimers: true });
    // Armed (the reply carries the ticket); on a loaded machine the window may be over already.
    const added = await write(h, admin, '/api/sample/link', { action: 'add', name: 'lan', address: '192.168.1.1' });
    expect(added.data.confirm).toMatchObject({ seconds: 1 });
    await vi.waitFor(() => expect(pendingRows(h)).toEqual([]), CONDITION_WAIT);
    await vi.waitFor(async () => expect(await names(h, admin)).toEqual([]), CONDITION_WAIT);
    expect(await names(h, admin)).toEqual([]);
    expect(lastRevision(h).summary).toEqual({ key: 'notConfirmed' });
  });

  test('a token presented after the deadline is refused and the change reverted', async () => {
    const { h, admin } = await boot();
    const reply = await write(h, admin, '/api/sample/link', { action: 'add', name: 'lan', address: '192.168.1.1' });
    h.clock.advance(90);
    expect(await confirmFrom(h, '127.0.0.1', { token: reply.data.confirm.token })).toEqual({ success: false, msg: 'msg.confirmInvalid' });
    expect(await names(h, admin)).toEqual([]);
  });

  test('a restart past the deadline reverts at start', async () => {
    const rig = await boot();
    const id = await withLan(rig);
    await write(rig.h, rig.admin, '/api/sample/link', { action: 'update', id, address: '172.16.0.1' });
    rig.applier.calls = [];
    rig.h.clock.advance(120);
    const h = await restart(rig);
    expect(pendingRows(h)).toEqual([]);
    expect(lastRevision(h)).toMatchObject({ user: 'system', summary: { key: 'notConfirmed' } });
    expect(rig.applier.calls.map((c) => c.domains)).toEqual([['links']]);
    const admin = await login(h.app, 'admin', 'Admin2025pass');
    expect(await names(h, admin)).toEqual(['lan=192.168.1.1']);
  });

  test('a restart inside the window waits for the rest of it, and the token still works', async () => {
    const rig = await boot();
    const reply = await write(rig.h, rig.admin, '/api/sample/link', { action: 'add', name: 'lan', address: '192.168.1.1' });
    rig.h.clock.advance(30);
    const h = await restart(rig);
    expect(pendingRows(h)).toHaveLength(1);
    expect(rig.timers.live().map((j) => j.ms)).toEqual([60_000]);
    expect(await confirmFrom(h, '127.0.0.1', { token: reply.data.confirm.token })).toMatchObject({ success: true });
    expect(rig.timers.live()).toEqual([]);
    const admin = await login(h.app, 'admin', 'Admin2025pass');
    expect(await names(h, admin)).toEqual(['lan=192.168.1.1']);
  });

  test('a journal revert that touches such an entity waits for its confirmation too', async () => {
    const rig = await boot();
    const { h, admin, timers } = rig;
    const id = await withLan(rig);
    const kept = lastRevision(h).id;
    const reply = await write(h, admin, '/api/sample/link', { action: 'update', id, address: '192.168.1.2' });
    await confirmFrom(h, '127.0.0.1', { token: reply.data.confirm.token });
    const reverted = await write(h, admin, '/api/sysconf/journal', { action: 'revert', id: kept });
    expect(reverted).toEqual({ success: true, data: { revision: expect.any(Number), confirm: expect.objectContaining({ seconds: 90 }) } });
    expect(await names(h, admin)).toEqual(['lan=192.168.1.1']);
    timers.fire();
    await vi.waitFor(() => expect(pendingRows(h)).toEqual([]), CONDITION_WAIT);
    expect(await names(h, admin)).toEqual(['lan=192.168.1.2']);
  });
});

describe('admin allowed addresses', () => {
  test('restricting the signed-in account waits for confirmation and is put back without it', async () => {
    const { h, admin, timers } = await boot();
    const self = json(await get(h.app, admin, '/api/admin')).data.items.find((u: { username: string }) => u.username === 'admin');
    const reply = await write(h, admin, '/api/admin', { action: 'update', id: self.id, allowd_ips: ['10.99.0.0/16'] });
    expect(reply.data).toMatchObject({ allowd_ips: ['10.99.0.0/16'], confirm: { seconds: 90 } });
    // The caller is locked out at once ...
    expect((await get(h.app, admin, '/api/islogin')).statusCode).toBe(401);
    timers.fire();
    // ... and let back in when the change is not confirmed.
    expect((await get(h.app, admin, '/api/islogin')).statusCode).toBe(200);
    expect(h.app.appContext.accounts.byId(self.id)!.allowdIps).toEqual([]);
    expect(lastRevision(h)).toMatchObject({ user: 'system', summary: { key: 'notConfirmed' } });
    const { changes } = json(await post(h.app, admin, '/api/sysconf/journal', { action: 'get', id: lastRevision(h).id })).data;
    expect(changes).toEqual([
      expect.objectContaining({ entity: 'adminUser', id: self.id, action: 'update', before: expect.objectContaining({ allowd_ips: ['10.99.0.0/16'] }), after: expect.objectContaining({ allowd_ips: [] }), fields: ['allowd_ips'] }),
    ]);
  });

  test('confirmed from the allowed address, the restriction stays', async () => {
    const { h, admin } = await boot();
    const self = json(await get(h.app, admin, '/api/admin')).data.items.find((u: { username: string }) => u.username === 'admin');
    const reply = await write(h, admin, '/api/admin', { action: 'update', id: self.id, allowd_ips: ['10.99.0.0/16'] });
    expect(await confirmFrom(h, '10.99.1.1', { token: reply.data.confirm.token })).toMatchObject({ success: true });
    expect(h.app.appContext.accounts.byId(self.id)!.allowdIps).toEqual(['10.99.0.0/16']);
    expect((await login(h.app, 'admin', 'Admin2025pass', '10.99.1.1')).csrf).toBeTruthy();
  });

  test("changing another account's addresses cannot cut the caller off: no confirmation", async () => {
    const { h, admin } = await boot();
    const added = await write(h, admin, '/api/admin', { action: 'add', username: 'ops', password: 'OpsPass1234', confirm: 'OpsPass1234', privilege: 0 });
    expect(added.data.confirm).toBeUndefined();
    const reply = await write(h, admin, '/api/admin', { action: 'update', id: added.data.id, allowd_ips: ['10.1.0.0/16'] });
    expect(reply).toMatchObject({ success: true, data: { allowd_ips: ['10.1.0.0/16'] } });
    expect(reply.data.confirm).toBeUndefined();
    expect(pendingRows(h)).toEqual([]);
  });
});
