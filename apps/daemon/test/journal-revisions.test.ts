import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineEntity, type AnyEntity } from '@portico/schema';
import { registerEntityRoutes } from '../src/config/entity-routes.js';
import type { ConfigApplier, ConfigSnapshot } from '../src/config/config-types.js';
import { REDACTED } from '../src/config/config-diff.js';
import { addAccount, adminClient, get, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

/** A RADIUS-like singleton with a secret, fed to a domain of its own. */
const sampleServer = defineEntity({
  name: 'sampleServer',
  path: 'sample/server',
  module: 'radius',
  kind: 'singleton',
  schema: z.object({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(1812),
    secret: z.string().min(1),
  }),
  writeOnly: ['secret'],
  form: { tabs: [{ key: 'basic', fields: [{ name: 'host' }, { name: 'port' }, { name: 'secret', keepWhenEmpty: true }] }] },
}) as unknown as AnyEntity;

/** A port-mapping-like collection. */
const sampleRule = defineEntity({
  name: 'sampleRule',
  path: 'sample/rule',
  module: 'portmapping',
  kind: 'collection',
  schema: z.object({ id: z.string(), name: z.string().min(1), port: z.number().int().min(1).max(65535) }),
  list: { columns: [{ field: 'name' }, { field: 'port' }] },
}) as unknown as AnyEntity;

/** Records every apply it is asked for. */
class RecordingApplier implements ConfigApplier {
  calls: Array<{ domains: string[]; snapshot: ConfigSnapshot }> = [];
  async apply(domains: readonly string[], snapshot: ConfigSnapshot): Promise<void> {
    this.calls.push({ domains: [...domains], snapshot });
  }
}

const SECRET = 'Radius-S3cret-value';
const USER_PASSWORD = 'JournalPass123';
const WRITER_IP = '192.0.2.10';

let h: Harness;
let admin: Client;
const applier = new RecordingApplier();

beforeAll(async () => {
  h = await startDaemon({
    deps: {
      config: {
        applier,
        domains: [
          { name: 'radius', entities: ['sampleServer'] },
          { name: 'mapping', entities: ['sampleRule'] },
        ],
      },
    },
    beforeReady: (app) => registerEntityRoutes(app, app.appContext, [sampleServer, sampleRule]),
  });
  admin = { ...(await adminClient(h)), ip: WRITER_IP };
});
afterAll(async () => {
  await h.close();
});

type Head = { id: number; at: number; user: string; source_ip: string; summary: unknown };
type Change = { entity: string; id: string; action: string; before: Record<string, unknown> | null; after: Record<string, unknown> | null; fields: string[] };

const write = (url: string, payload: object, client = admin) => post(h.app, client, url, payload).then(json);
const journal = (payload: object, client = admin) => post(h.app, client, '/api/sysconf/journal', payload).then(json);
const heads = async (query = ''): Promise<{ items: Head[]; total: number }> => json(await get(h.app, admin, `/api/sysconf/journal${query}`)).data;
const latest = async (): Promise<Head> => (await heads('?pageSize=1')).items[0]!;
const revision = async (id: number): Promise<Head & { changes: Change[] }> => (await journal({ action: 'get', id })).data;

/** Runs a write and returns the one revision it made (and fails if it made another number). */
async function oneRevision(run: () => Promise<{ success: boolean }>): Promise<Head & { changes: Change[] }> {
  const before = (await heads()).total;
  const reply = await run();
  expect(reply.success, JSON.stringify(reply)).toBe(true);
  expect((await heads()).total).toBe(before + 1);
  return revision((await latest()).id);
}

describe('every configuration write becomes a revision', () => {
  test('the journal starts with the configuration found at start', async () => {
    const { items } = await heads();
    expect(items.at(-1)).toMatchObject({ user: 'system', summary: { key: 'atStart' } });
  });

  test('collection add, update and delete: who, from where, when, a summary and the diff', async () => {
    const added = await oneRevision(() => write('/api/sample/rule', { action: 'add', name: 'web', port: 8080 }));
    expect(added).toMatchObject({ user: 'admin', source_ip: WRITER_IP, at: h.clock.ms, summary: { key: 'changes', groups: [{ entity: 'sampleRule', action: 'add', labels: ['web'] }] } });
    const id = added.changes[0]!.id;
    expect(added.changes).toEqual([
      { entity: 'sampleRule', id, action: 'add', before: null, after: { id, name: 'web', port: 8080 }, fields: ['id', 'name', 'port'] },
    ]);

    const updated = await oneRevision(() => write('/api/sample/rule', { action: 'update', id, port: 8081 }));
    expect(updated.summary).toEqual({ key: 'changes', groups: [{ entity: 'sampleRule', action: 'update', labels: ['web'] }] });
    expect(updated.changes).toEqual([
      { entity: 'sampleRule', id, action: 'update', before: { id, name: 'web', port: 8080 }, after: { id, name: 'web', port: 8081 }, fields: ['port'] },
    ]);

    const removed = await oneRevision(() => write('/api/sample/rule', { action: 'delete', ids: [id] }));
    expect(removed.changes).toEqual([{ entity: 'sampleRule', id, action: 'delete', before: { id, name: 'web', port: 8081 }, after: null, fields: ['id', 'name', 'port'] }]);
  });

  test('each write is applied through its domain', async () => {
    applier.calls = [];
    await write('/api/sample/rule', { action: 'add', name: 'ssh', port: 22 });
    expect(applier.calls.map((c) => c.domains)).toEqual([['mapping']]);
    expect(applier.calls[0]!.snapshot.sampleRule!.map((r) => r.data.name)).toContain('ssh');
  });

  test('a secret is named in the diff when it changes but its value never appears', async () => {
    const first = await oneRevision(() => write('/api/sample/server', { host: '10.0.0.5', secret: SECRET }));
    expect(first.changes[0]).toMatchObject({ entity: 'sampleServer', id: '', before: null, after: { host: '10.0.0.5', port: 1812, secret: REDACTED } });
    // Sent empty: the stored secret is kept, so the diff does not name it.
    const kept = await oneRevision(() => write('/api/sample/server', { host: '10.0.0.6', secret: '' }));
    expect(kept.changes[0]!.fields).toEqual(['host']);
    const changed = await oneRevision(() => write('/api/sample/server', { host: '10.0.0.6', secret: `${SECRET}-2` }));
    expect(changed.changes[0]).toMatchObject({ before: { secret: REDACTED }, after: { secret: REDACTED }, fields: ['secret'] });
  });

  test('admin account writes are journalled with public fields only and say they are not restored by revert', async () => {
    const added = await oneRevision(() =>
      write('/api/admin', { action: 'add', username: 'auditor', password: USER_PASSWORD, confirm: USER_PASSWORD, privilege: 2 }),
    );
    expect(added.summary).toEqual({ key: 'changes', groups: [{ entity: 'adminUser', module: 'usermanagement', action: 'add', labels: ['auditor'] }], journalOnly: true });
    const id = added.changes[0]!.id;
    expect(added.changes[0]!.after).toEqual({
      id,
      username: 'auditor',
      privilege: 2,
      disabled: false,
      allowd_ips: [],
      password: REDACTED,
      confirm: REDACTED,
    });
    const updated = await oneRevision(() => write('/api/admin', { action: 'update', id, password: `${USER_PASSWORD}x`, confirm: `${USER_PASSWORD}x` }));
    expect(updated.changes[0]!.fields).toEqual(['confirm', 'password']);
    const removed = await oneRevision(() => write('/api/admin', { action: 'delete', id }));
    expect(removed.changes[0]).toMatchObject({ action: 'delete', before: { username: 'auditor' }, after: null });
  });

  test('no secret, password or password hash is stored in the journal or answered by it', async () => {
    const hashes = (h.app.appContext.db.prepare('SELECT password_hash FROM admin_users').all() as Array<{ password_hash: string }>).map((r) => r.password_hash);
    const stored = h.app.appContext.db.prepare('SELECT changes, summary FROM revisions').all() as Array<{ changes: string; summary: string }>;
    const snapshots = (h.app.appContext.db.prepare('SELECT snapshot FROM revisions').all() as Array<{ snapshot: string }>).map((r) => r.snapshot).join('\n');
    const answered: string[] = [JSON.stringify(await heads('?pageSize=200'))];
    for (const head of (await heads('?pageSize=200')).items) answered.push(JSON.stringify(await revision(head.id)));
    answered.push(JSON.stringify(await journal({ action: 'diff', from: 1, to: (await latest()).id })));
    const everything = [...stored.map((r) => r.changes + r.summary), ...answered].join('\n');
    for (const secret of [SECRET, `${SECRET}-2`, USER_PASSWORD, `${USER_PASSWORD}x`, ...hashes]) expect(everything).not.toContain(secret);
    // Accounts are not in the snapshots at all.
    for (const value of [USER_PASSWORD, `${USER_PASSWORD}x`, ...hashes]) expect(snapshots).not.toContain(value);
  });
});

describe('journal API', () => {
  test('lists newest first with paging', async () => {
    const all = await heads('?pageSize=200');
    expect(all.total).toBe(all.items.length);
    expect(all.items.map((r) => r.id)).toEqual([...all.items.map((r) => r.id)].sort((a, b) => b - a));
    const second = await heads('?page=2&pageSize=2');
    expect(second).toEqual({ items: all.items.slice(2, 4), total: all.total });
    expect(Object.keys(second.items[0]!).sort()).toEqual(['at', 'id', 'source_ip', 'summary', 'user']);
    expect(json(await get(h.app, admin, '/api/sysconf/journal?pageSize=5000')).errors).toEqual({ pageSize: 'validation.tooBig' });
  });

  test('get and diff answer not found for unknown revisions and check their input', async () => {
    expect(await journal({ action: 'get', id: 99999 })).toEqual({ success: false, msg: 'msg.notFound' });
    expect(await journal({ action: 'diff', from: 1, to: 99999 })).toEqual({ success: false, msg: 'msg.notFound' });
    expect((await journal({ action: 'get' })).errors).toEqual({ id: expect.stringMatching(/^validation\./) });
    expect((await journal({ action: 'explode' })).errors).toEqual({ action: 'validation.option' });
  });

  test('diff lists the changes between two revisions, redacted', async () => {
    const a = await oneRevision(() => write('/api/sample/rule', { action: 'add', name: 'dns', port: 53 }));
    const id = a.changes[0]!.id;
    await write('/api/sample/rule', { action: 'update', id, port: 5353 });
    await write('/api/sample/server', { host: '10.0.0.7', secret: 'Another-Secret-1' });
    const b = await latest();
    const diff = (await journal({ action: 'diff', from: a.id, to: b.id })).data;
    expect(diff.from).toBe(a.id);
    expect(diff.changes).toEqual([
      {
        entity: 'sampleRule',
        id,
        action: 'update',
        before: { id, name: 'dns', port: 53 },
        after: { id, name: 'dns', port: 5353 },
        fields: ['port'],
      },
      {
        entity: 'sampleServer',
        id: '',
        action: 'update',
        before: { host: '10.0.0.6', port: 1812, secret: REDACTED },
        after: { host: '10.0.0.7', port: 1812, secret: REDACTED },
        fields: ['host', 'secret'],
      },
    ]);
    expect(JSON.stringify(diff)).not.toContain('Another-Secret-1');
  });

  test('revert restores a revision as a new revision and applies it; accounts are untouched', async () => {
    const mark = await oneRevision(() => write('/api/sample/rule', { action: 'add', name: 'keep', port: 1000 }));
    const rulesAt = json(await get(h.app, admin, '/api/sample/rule')).data.items;
    const serverAt = json(await get(h.app, admin, '/api/sample/server')).data;
    await write('/api/sample/rule', { action: 'add', name: 'later', port: 2000 });
    await write('/api/sample/rule', { action: 'delete', id: mark.changes[0]!.id });
    await write('/api/sample/server', { host: '10.9.9.9', secret: '' });
    const carol = await addAccount(h, admin, 'carol', 2);

    applier.calls = [];
    const reverted = await journal({ action: 'revert', id: mark.id });
    expect(reverted).toEqual({ success: true, data: { revision: expect.any(Number) } });
    const rev = await revision(reverted.data.revision);
    expect(rev).toMatchObject({ user: 'admin', source_ip: WRITER_IP, summary: { key: 'revertTo', revision: mark.id } });
    expect(rev.changes.map((c) => `${c.entity} ${c.action}`).sort()).toEqual(['sampleRule add', 'sampleRule delete', 'sampleServer update']);
    expect(json(await get(h.app, admin, '/api/sample/rule')).data.items).toEqual(rulesAt);
    expect(json(await get(h.app, admin, '/api/sample/server')).data).toEqual(serverAt);
    expect(applier.calls.map((c) => c.domains)).toEqual([['radius', 'mapping']]);
    // The secret came back with the rest of the record.
    const stored = h.app.appContext.db.prepare("SELECT data FROM config_rows WHERE entity = 'sampleServer'").get() as { data: string };
    expect(JSON.parse(stored.data).secret).toBe('Another-Secret-1');
    // Accounts are not part of a snapshot.
    expect(json(await get(h.app, admin, '/api/admin')).data.items.map((u: { id: string }) => u.id)).toContain(carol.id);

    // Reverting to what is already there changes nothing and records nothing.
    const total = (await heads()).total;
    expect(await journal({ action: 'revert', id: mark.id })).toEqual({ success: true, data: { revision: null } });
    expect((await heads()).total).toBe(total);
  });

  test('a visitor reads the journal but cannot revert; a voucher administrator sees nothing', async () => {
    const guest = await addAccount(h, admin, 'visitor', 2);
    const visitor = await login(h.app, 'visitor', guest.password);
    const id = (await latest()).id;
    expect(json(await get(h.app, visitor, '/api/sysconf/journal')).success).toBe(true);
    expect((await journal({ action: 'get', id }, visitor)).success).toBe(true);
    expect((await journal({ action: 'diff', from: 1, to: id }, visitor)).success).toBe(true);
    expect(await journal({ action: 'revert', id: 1 }, visitor)).toEqual({ success: false, msg: 'forbidden' });
    expect(await journal({}, visitor)).toEqual({ success: false, msg: 'forbidden' });

    const voucher = await addAccount(h, admin, 'vouchers', 1);
    const vclient = await login(h.app, 'vouchers', voucher.password);
    expect(json(await get(h.app, vclient, '/api/sysconf/journal'))).toEqual({ success: false, msg: 'forbidden' });
    expect(await journal({ action: 'get', id }, vclient)).toEqual({ success: false, msg: 'forbidden' });
  });

  test('the journal needs a session and the CSRF token', async () => {
    expect((await get(h.app, null, '/api/sysconf/journal')).statusCode).toBe(401);
    const res = await h.app.inject({ method: 'POST', url: '/api/sysconf/journal', payload: { action: 'revert', id: 1 }, headers: { cookie: admin.cookie } });
    expect(res.statusCode).toBe(403);
  });
});
