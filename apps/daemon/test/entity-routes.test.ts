import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineEntity, type AnyEntity } from '@portico/schema';
import { registerEntityRoutes } from '../src/config/entity-routes.js';
import { addAccount, adminClient, get, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

/** Entities shaped like the ones the product declares, registered through the same function. */
const sampleServer = defineEntity({
  name: 'sampleServer',
  path: 'sample/server',
  module: 'radius',
  kind: 'singleton',
  schema: z.object({
    enabled: z.boolean().default(false),
    host: z.string().min(1, { error: 'validation.required' }),
    port: z.number().int().min(1).max(65535).default(1812),
    secret: z.string().min(1, { error: 'validation.required' }),
  }),
  writeOnly: ['secret'],
  form: { tabs: [{ key: 'basic', fields: [{ name: 'enabled' }, { name: 'host' }, { name: 'port' }, { name: 'secret', keepWhenEmpty: true }] }] },
}) as unknown as AnyEntity;

const sampleRule = defineEntity({
  name: 'sampleRule',
  path: 'sample/rule',
  module: 'portmapping',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    name: z.string().min(1, { error: 'validation.required' }).max(32, { error: 'validation.name.length' }),
    port: z.number().int().min(1).max(65535),
    enabled: z.boolean().default(true),
  }),
  list: { columns: [{ field: 'name', sortable: true }, { field: 'port', sortable: true }, { field: 'enabled' }], defaultSort: 'port' },
  maxRows: 3,
}) as unknown as AnyEntity;

let h: Harness;
let admin: Client;
beforeAll(async () => {
  h = await startDaemon({ beforeReady: (app) => registerEntityRoutes(app, app.appContext, [sampleServer, sampleRule]) });
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

const write = (url: string, payload: object, client = admin) => post(h.app, client, url, payload).then(json);

describe('derived singleton routes', () => {
  test('read the declared defaults before the first save', async () => {
    expect(json(await get(h.app, admin, '/api/sample/server?_=1'))).toEqual({ success: true, data: { enabled: false, port: 1812 } });
  });

  test('update validates and replaces the record; secrets are never read back and kept when sent empty', async () => {
    expect(await write('/api/sample/server', { host: '' })).toEqual({
      success: false,
      msg: 'msg.reviewFields',
      errors: { host: 'validation.required', secret: 'validation.required' },
    });
    expect(await write('/api/sample/server', { host: '10.0.0.5', secret: 's3cret', port: 1645, enabled: true })).toEqual({
      success: true,
      data: { host: '10.0.0.5', port: 1645, enabled: true },
    });
    // Replaced, not merged: omitted fields fall back to their defaults; the secret stays.
    expect(await write('/api/sample/server', { action: 'update', host: '10.0.0.6', secret: '' })).toEqual({
      success: true,
      data: { host: '10.0.0.6', port: 1812, enabled: false },
    });
    const stored = h.app.appContext.db.prepare("SELECT data FROM config_rows WHERE entity = 'sampleServer'").get() as { data: string };
    expect(JSON.parse(stored.data).secret).toBe('s3cret');
    expect((await get(h.app, admin, '/api/sample/server')).body).not.toContain('s3cret');
    expect(await write('/api/sample/server', { action: 'get' })).toEqual({ success: true, data: { host: '10.0.0.6', port: 1812, enabled: false } });
  });
});

describe('derived collection routes with the default store', () => {
  test('add, list, update, get, delete; maxRows', async () => {
    const url = '/api/sample/rule';
    const a = await write(url, { action: 'add', name: 'web', port: 8080 });
    expect(a).toMatchObject({ success: true, data: { name: 'web', port: 8080, enabled: true } });
    const b = await write(url, { action: 'add', name: 'ssh', port: 22, enabled: false });
    await write(url, { action: 'add', name: 'dns', port: 53 });
    expect(await write(url, { action: 'add', name: 'ftp', port: 21 })).toEqual({ success: false, msg: 'msg.maxRows' });
    expect((await write(url, { action: 'add', name: '', port: 70000 })).errors).toEqual({ name: 'validation.required', port: 'validation.tooBig' });

    const listed = json(await get(h.app, admin, `${url}?_=9`)).data;
    expect(listed.total).toBe(3);
    expect(listed.items.map((r: { port: number }) => r.port)).toEqual([22, 53, 8080]);
    expect(json(await get(h.app, admin, `${url}?enabled=false`)).data.items.map((r: { name: string }) => r.name)).toEqual(['ssh']);

    expect(await write(url, { id: a.data.id, port: 8081 })).toMatchObject({ success: true, data: { id: a.data.id, name: 'web', port: 8081 } });
    expect(await write(url, { action: 'get', id: a.data.id })).toMatchObject({ data: { port: 8081 } });
    expect(await write(url, { action: 'delete', ids: [a.data.id, b.data.id] })).toEqual({ success: true });
    expect(json(await get(h.app, admin, url)).data.total).toBe(1);
  });

  test('permissions come from the entity module', async () => {
    const voucher = await addAccount(h, admin, 'vch', 1);
    const client = await login(h.app, 'vch', voucher.password);
    expect(json(await get(h.app, client, '/api/sample/rule'))).toEqual({ success: false, msg: 'forbidden' });
    expect(await write('/api/sample/server', { host: 'x', secret: 'y' }, client)).toEqual({ success: false, msg: 'forbidden' });
    const route = h.app.routeTable.find((r) => r.method === 'POST' && r.url === '/api/sample/rule');
    expect(route?.policy).toEqual({ module: 'portmapping', effect: 'write', actionEffects: { get: 'read' } });
  });
});
