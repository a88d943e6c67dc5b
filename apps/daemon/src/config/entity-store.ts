import { randomUUID } from 'node:crypto';
import type { ApiFailure } from '@portico/schema';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import type { Db } from '../plugins/db-open.js';
import type { RequestAuth } from '../plugins/route-policy.js';

export type EntityRow = Record<string, unknown>;
type MaybePromise<T> = T | Promise<T>;

/** Rows of a collection entity. Records given to insert/update are already validated. */
export interface CollectionStore {
  list(): MaybePromise<EntityRow[]>;
  get(id: string): MaybePromise<EntityRow | undefined>;
  count(): MaybePromise<number>;
  insert(record: EntityRow): MaybePromise<EntityRow>;
  /** `record` is the full validated record; fields kept from the stored row are absent. */
  update(id: string, record: EntityRow): MaybePromise<EntityRow>;
  remove(ids: readonly string[]): MaybePromise<number>;
}

/** The one record of a singleton entity; undefined until first written. */
export interface SingletonStore {
  read(): MaybePromise<EntityRow | undefined>;
  write(record: EntityRow): MaybePromise<EntityRow>;
}

/** Who writes, from where: what rule hooks need besides the rows. */
export interface WriteContext {
  request: FastifyRequest;
  auth: RequestAuth;
  app: AppContext;
}

export interface EntityChange {
  mode: 'add' | 'update';
  /** Validated record; keep-when-empty fields left empty are absent. */
  record: EntityRow;
  /** Stored row before an update. */
  previous?: EntityRow;
}

/** Business rules an entity adds to the derived routes; a returned failure refuses the write. */
export interface EntityRules {
  checkWrite?(change: EntityChange, context: WriteContext): MaybePromise<ApiFailure | undefined>;
  checkDelete?(rows: EntityRow[], context: WriteContext): MaybePromise<ApiFailure | undefined>;
  afterWrite?(change: EntityChange & { saved: EntityRow }, context: WriteContext): MaybePromise<void>;
  afterDelete?(rows: EntityRow[], context: WriteContext): MaybePromise<void>;
}

/** Thrown by a store when the write cannot be done (e.g. a unique name taken meanwhile). */
export class EntityWriteRefused extends Error {
  constructor(readonly reply: ApiFailure) {
    super(reply.msg);
  }
}

/** Collections kept as JSON rows in config_rows, in insertion order. */
export function configRowCollection(db: Db, entity: string, now: () => number): CollectionStore {
  const parse = (row: { id: string; data: string }): EntityRow => ({ ...(JSON.parse(row.data) as EntityRow), id: row.id });
  return {
    list: () =>
      (db.prepare('SELECT id, data FROM config_rows WHERE entity = ? ORDER BY rowid').all(entity) as Array<{ id: string; data: string }>).map(parse),
    get: (id) => {
      const row = db.prepare('SELECT id, data FROM config_rows WHERE entity = ? AND id = ?').get(entity, id) as
        | { id: string; data: string }
        | undefined;
      return row ? parse(row) : undefined;
    },
    count: () => (db.prepare('SELECT COUNT(*) AS n FROM config_rows WHERE entity = ?').get(entity) as { n: number }).n,
    insert: (record) => {
      const id = randomUUID();
      const saved = { ...record, id };
      db.prepare('INSERT INTO config_rows (entity, id, data, updated_at) VALUES (?, ?, ?, ?)').run(entity, id, JSON.stringify(saved), now());
      return saved;
    },
    update: (id, record) => {
      const previous = db.prepare('SELECT data FROM config_rows WHERE entity = ? AND id = ?').get(entity, id) as { data: string } | undefined;
      const saved = { ...(previous ? (JSON.parse(previous.data) as EntityRow) : {}), ...record, id };
      db.prepare('UPDATE config_rows SET data = ?, updated_at = ? WHERE entity = ? AND id = ?').run(JSON.stringify(saved), now(), entity, id);
      return saved;
    },
    remove: (ids) => {
      const stmt = db.prepare('DELETE FROM config_rows WHERE entity = ? AND id = ?');
      return db.transaction(() => ids.reduce((n, id) => n + stmt.run(entity, id).changes, 0))();
    },
  };
}

/** A singleton kept as one config_rows row with an empty id. */
export function configRowSingleton(db: Db, entity: string, now: () => number): SingletonStore {
  return {
    read: () => {
      const row = db.prepare("SELECT data FROM config_rows WHERE entity = ? AND id = ''").get(entity) as { data: string } | undefined;
      return row ? (JSON.parse(row.data) as EntityRow) : undefined;
    },
    write: (record) => {
      db.prepare(
        `INSERT INTO config_rows (entity, id, data, updated_at) VALUES (?, '', ?, ?)
         ON CONFLICT(entity, id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
      ).run(entity, JSON.stringify(record), now());
      return record;
    },
  };
}
