import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  ENTITY_GROUPS,
  fieldErrors,
  MSG,
  permits,
  type EntityGroup,
  publicRecord,
  publicSchema,
  writeSchema,
  type AnyEntity,
  type ApiFailure,
} from '@portico/schema';
import type { AppContext } from '../app-context.js';
import { envelope, failure, success } from '../plugins/api-envelope.js';
import { deferred, type DeferredSchema } from '../plugins/deferred-schema.js';
import type { RouteDoc, RoutePolicy } from '../plugins/route-policy.js';
import { policyPermission } from '../plugins/security-guard.js';
import { listQuerySchema, pageRows, type ListQuery } from './entity-list.js';
import { actorOf, confirmData, withConfirm } from './config-write.js';
import {
  configRowCollection,
  configRowSingleton,
  EntityWriteRefused,
  type CollectionStore,
  type EntityChange,
  type EntityRow,
  type EntityRules,
  type SingletonStore,
  type WriteContext,
} from './entity-store.js';

/** What a domain may supply for one entity instead of the config_rows default. */
export interface EntityBinding {
  store?: CollectionStore | SingletonStore;
  rules?: EntityRules;
}

/** Fields of the entity's form that keep their stored value when sent empty (passwords). */
function keepWhenEmptyFields(entity: AnyEntity): string[] {
  return (entity.form?.tabs ?? []).flatMap((t) => t.fields).filter((f) => f.keepWhenEmpty).map((f) => f.name);
}

function addOnlyFields(entity: AnyEntity): string[] {
  return (entity.form?.tabs ?? []).flatMap((t) => t.fields).filter((f) => f.addOnly).map((f) => f.name);
}

/** Values a singleton reads as before it is first saved: the fields' declared defaults. */
export function singletonDefaults(entity: AnyEntity): EntityRow {
  const out: EntityRow = {};
  for (const [name, field] of Object.entries(entity.schema.shape)) {
    const parsed = (field as z.ZodType).safeParse(undefined);
    if (parsed.success && parsed.data !== undefined) out[name] = parsed.data;
  }
  return out;
}

const idField = z.string({ error: 'validation.required' }).min(1, { error: 'validation.required' }).max(128);

/** The POST body as documented: the record's fields plus the action and its ids. */
function writeBodyDoc(entity: AnyEntity): z.ZodType {
  const actions = entity.kind === 'collection' ? (['add', 'update', 'delete', 'get'] as const) : (['update', 'get'] as const);
  const base = entity.schema.partial().extend({ action: z.enum(actions).default('update') });
  return entity.kind === 'collection' ? base.extend({ id: z.string().optional(), ids: z.array(z.string()).optional() }) : base;
}

/** A reply carrying one record (fields optional: a singleton reads partly before it is saved). */
function recordReply(entity: AnyEntity): DeferredSchema {
  return deferred(() => envelope(publicSchema(entity).partial()));
}

/** What the OpenAPI document says about an entity's POST route; built when the document is. */
function writeDoc(entity: AnyEntity): RouteDoc {
  return { entity: entity.name, body: deferred(() => writeBodyDoc(entity)), response: recordReply(entity) };
}

function plainObject(value: unknown): value is EntityRow {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function without(record: EntityRow, keys: readonly string[]): EntityRow {
  const out = { ...record };
  for (const key of keys) delete out[key];
  return out;
}

/**
 * Registers GET and POST /api/<path> for every entity (DESIGN §2): list or record reads, and
 * add / update / delete / get writes validated with writeSchema(), errors mapped to fields.
 */
export function registerEntityRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  entities: readonly AnyEntity[],
  bindings: Readonly<Record<string, EntityBinding>> = {},
  groups: readonly EntityGroup[] = ENTITY_GROUPS,
): void {
  const handlers = new Map<string, EntityHandlers>();
  for (const entity of entities) {
    const binding = bindings[entity.name] ?? {};
    // Every write goes through the config service: journalled, applied, confirmed if needed.
    ctx.config.declare(entity);
    const journalOnly = binding.store !== undefined;
    if (entity.kind === 'collection') {
      const store = (binding.store as CollectionStore | undefined) ?? configRowCollection(ctx.db, entity.name, ctx.now);
      handlers.set(entity.name, registerCollection(app, ctx, entity, store, binding.rules ?? {}, journalOnly));
    } else {
      const store = (binding.store as SingletonStore | undefined) ?? configRowSingleton(ctx.db, entity.name, ctx.now);
      handlers.set(entity.name, registerSingleton(app, ctx, entity, store, binding.rules ?? {}, journalOnly));
    }
  }
  for (const group of groups) {
    if (Object.values(group.sections).every((entity) => handlers.has(entity.name))) registerGroup(app, group, handlers);
  }
}

/** What an entity's own routes answer, for a group path to answer the same. */
interface EntityHandlers {
  /** The whole list of a collection, or a singleton's record. */
  read(): Promise<unknown>;
  write(request: FastifyRequest, body: EntityRow): Promise<unknown>;
}

/**
 * A group path (ENTITY_GROUPS): GET answers each section as its own path would (a collection
 * whole, unpaged); POST writes the section its body names. The route's policy admits a caller
 * with any of the sections' pages; the section's own page decides the write.
 */
function registerGroup(app: FastifyInstance, group: EntityGroup, handlers: ReadonlyMap<string, EntityHandlers>): void {
  const sections = Object.entries(group.sections);
  const modules = [...new Set(sections.flatMap(([, entity]) => (typeof entity.module === 'string' ? [entity.module] : [])))];
  const url = `/api/${group.path}`;
  app.get(url, { config: { policy: { module: modules, effect: 'read' }, doc: { summary: `sections: ${sections.map(([key]) => key).join(', ')}` } } }, async (request) => {
    const out: Record<string, unknown> = {};
    for (const [key, entity] of sections) {
      if (permits(policyPermission(request.auth!, { module: entity.module, effect: 'read' }), 'read')) out[key] = await handlers.get(entity.name)!.read();
    }
    return success(out);
  });
  app.post(
    url,
    { config: { policy: { module: modules, effect: 'write', actionEffects: { get: 'read' } }, doc: { summary: `the body's section (${sections.map(([key]) => key).join(', ')}) is written as on its own path` } } },
    async (request) => {
      const body = request.body ?? {};
      if (!plainObject(body)) return failure(MSG.invalid);
      const entity = typeof body.section === 'string' ? group.sections[body.section] : undefined;
      if (!entity || !Object.hasOwn(group.sections, String(body.section))) return failure(MSG.invalid, { section: 'validation.option' });
      const effect = (body.action ?? 'update') === 'get' ? 'read' : 'write';
      if (!permits(policyPermission(request.auth!, { module: entity.module, effect }), effect)) return failure(MSG.forbidden);
      return handlers.get(entity.name)!.write(request, without(body, ['section']));
    },
  );
}

function policies(entity: AnyEntity): { read: RoutePolicy; write: RoutePolicy } {
  return {
    read: { module: entity.module, effect: 'read' },
    // Reading one record through POST action=get is a read, not a write.
    write: { module: entity.module, effect: 'write', actionEffects: { get: 'read' } },
  };
}

function context(request: FastifyRequest, app: AppContext): WriteContext {
  return { request, auth: request.auth!, app };
}

async function guarded<T>(work: () => Promise<T>): Promise<T | ApiFailure> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof EntityWriteRefused) return error.reply;
    throw error;
  }
}

function registerCollection(
  app: FastifyInstance,
  ctx: AppContext,
  entity: AnyEntity,
  store: CollectionStore,
  rules: EntityRules,
  journalOnly: boolean,
): EntityHandlers {
  const url = `/api/${entity.path}`;
  const { read, write } = policies(entity);
  const keepers = keepWhenEmptyFields(entity);
  const addOnly = addOnlyFields(entity);
  const show = (record: EntityRow) => publicRecord(entity, record);

  app.get(
    url,
    {
      config: { policy: read, doc: { entity: entity.name } },
      schema: {
        querystring: deferred(() => listQuerySchema(entity)),
        response: { 200: deferred(() => envelope(z.object({ items: z.array(publicSchema(entity)), total: z.number().int() }))) },
      },
    },
    async (request) => {
      const paged = pageRows(entity, await store.list(), request.query as ListQuery);
      if ('error' in paged) return failure(MSG.invalid, paged.error);
      return success({ items: paged.items.map(show), total: paged.total });
    },
  );

  const writer = async (request: FastifyRequest, body: EntityRow) => {
    const action = body.action ?? 'update';
    const wctx = context(request, ctx);

    if (action === 'get') {
      const id = idField.safeParse(body.id);
      if (!id.success) return failure(MSG.invalid, { id: 'validation.required' });
      const found = await store.get(id.data);
      return found ? success(show(found)) : failure(MSG.notFound);
    }

    if (action === 'delete') {
      const ids = z.array(idField).min(1).max(10_000).safeParse(body.ids ?? (body.id === undefined ? undefined : [body.id]));
      if (!ids.success) return failure(MSG.invalid, { id: 'validation.required' });
      const rows = (await Promise.all(ids.data.map((id) => store.get(id)))).filter((r): r is EntityRow => r !== undefined);
      if (rows.length === 0) return failure(MSG.notFound);
      return guarded(async () => {
        const refused = await rules.checkDelete?.(rows, wctx);
        if (refused) return refused;
        const outcome = await ctx.config.write({
          entity,
          actor: actorOf(request),
          journalOnly,
          mutate: () => store.remove(rows.map((r) => String(r.id))),
          describe: () => rows.map((row) => ({ entity: entity.name, id: String(row.id), action: 'delete' as const, before: row })),
        });
        if (!outcome.ok) return outcome.reply;
        await rules.afterDelete?.(rows, wctx);
        return success(confirmData(outcome));
      });
    }

    if (action === 'add') {
      const parsed = writeSchema(entity, 'add').safeParse(without(body, ['action', 'id']));
      if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
      if (entity.maxRows !== undefined && (await store.count()) >= entity.maxRows) return failure('msg.maxRows');
      return guarded(async () => {
        const change: EntityChange = { mode: 'add', record: parsed.data as EntityRow };
        const refused = await rules.checkWrite?.(change, wctx);
        if (refused) return refused;
        const outcome = await ctx.config.write({
          entity,
          actor: actorOf(request),
          journalOnly,
          mutate: () => store.insert(change.record),
          describe: (saved) => [{ entity: entity.name, id: String(saved.id), action: 'add', after: { ...change.record, ...saved } }],
        });
        if (!outcome.ok) return outcome.reply;
        const saved = outcome.result;
        await rules.afterWrite?.({ ...change, saved }, wctx);
        return success(withConfirm(show(saved), outcome));
      });
    }

    if (action === 'update') {
      const id = idField.safeParse(body.id);
      if (!id.success) return failure(MSG.invalid, { id: 'validation.required' });
      const previous = await store.get(id.data);
      if (!previous) return failure(MSG.notFound);
      const input: EntityRow = { ...show(previous), ...without(body, ['action']), id: id.data };
      // Identity fields are fixed once created.
      for (const field of addOnly) if (field in previous) input[field] = previous[field];
      const kept = keepers.filter((field) => input[field] === undefined || input[field] === '');
      for (const field of kept) delete input[field];
      const parsed = writeSchema(entity, 'update').safeParse(input);
      if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
      return guarded(async () => {
        const change: EntityChange = { mode: 'update', record: without(parsed.data as EntityRow, kept), previous };
        const refused = await rules.checkWrite?.(change, wctx);
        if (refused) return refused;
        const outcome = await ctx.config.write({
          entity,
          actor: actorOf(request),
          journalOnly,
          intent: [{ entity: entity.name, id: id.data, action: 'update', before: previous, after: { ...previous, ...change.record } }],
          mutate: () => store.update(id.data, change.record),
          describe: (saved) => [{ entity: entity.name, id: id.data, action: 'update', before: previous, after: { ...change.record, ...saved } }],
        });
        if (!outcome.ok) return outcome.reply;
        const saved = outcome.result;
        await rules.afterWrite?.({ ...change, saved }, wctx);
        return success(withConfirm(show(saved), outcome));
      });
    }

    return failure(MSG.invalid, { action: 'validation.option' });
  };
  app.post(url, { config: { policy: write, doc: writeDoc(entity) } }, async (request) => {
    const body = request.body ?? {};
    return plainObject(body) ? writer(request, body) : failure(MSG.invalid);
  });
  return {
    read: async () => {
      const items = (await store.list()).map(show);
      return { items, total: items.length };
    },
    write: writer,
  };
}

function registerSingleton(
  app: FastifyInstance,
  ctx: AppContext,
  entity: AnyEntity,
  store: SingletonStore,
  rules: EntityRules,
  journalOnly: boolean,
): EntityHandlers {
  const url = `/api/${entity.path}`;
  const { read, write } = policies(entity);
  const keepers = keepWhenEmptyFields(entity);
  const current = async () => (await store.read()) ?? singletonDefaults(entity);

  const reader = async () => success(publicRecord(entity, await current()));
  app.get(url, { config: { policy: read, doc: { entity: entity.name } }, schema: { response: { 200: recordReply(entity) } } }, reader);

  const writer = async (request: FastifyRequest, body: EntityRow) => {
    const action = body.action ?? 'update';
    if (action === 'get') return reader();
    if (action !== 'update') return failure(MSG.invalid, { action: 'validation.option' });
    const previous = await store.read();
    const input = without(body, ['action']);
    // Secrets sent empty keep their stored value; the rest of the record is replaced.
    const unset: string[] = [];
    for (const field of keepers) {
      if (input[field] !== undefined && input[field] !== '') continue;
      if (previous?.[field] !== undefined) input[field] = previous[field];
      else unset.push(field);
    }
    const parsed = writeSchema(entity, 'update').safeParse(input);
    // A secret with nothing stored yet has nothing to keep: it must pass its own rules.
    const errors = parsed.success ? {} : fieldErrors(parsed.error);
    for (const field of unset) {
      const own = z.object({ [field]: entity.schema.shape[field] as z.ZodType }).safeParse({ [field]: input[field] });
      if (!own.success) errors[field] ??= fieldErrors(own.error)[field] ?? 'validation.required';
    }
    if (!parsed.success || Object.keys(errors).length > 0) return failure(MSG.invalid, errors);
    const wctx = context(request, ctx);
    return guarded(async () => {
      const change: EntityChange = { mode: 'update', record: parsed.data as EntityRow, previous };
      const refused = await rules.checkWrite?.(change, wctx);
      if (refused) return refused;
      const outcome = await ctx.config.write({
        entity,
        actor: actorOf(request),
        journalOnly,
        intent: [{ entity: entity.name, id: '', action: 'update', before: previous, after: change.record }],
        mutate: () => store.write(change.record),
        describe: (saved) => [{ entity: entity.name, id: '', action: 'update', before: previous, after: saved }],
      });
      if (!outcome.ok) return outcome.reply;
      const saved = outcome.result;
      await rules.afterWrite?.({ ...change, saved }, wctx);
      return success(withConfirm(publicRecord(entity, saved), outcome));
    });
  };
  app.post(url, { config: { policy: write, doc: writeDoc(entity) } }, async (request) => {
    const body = request.body ?? {};
    return plainObject(body) ? writer(request, body) : failure(MSG.invalid);
  });
  return { read: async () => publicRecord(entity, await current()), write: writer };
}
