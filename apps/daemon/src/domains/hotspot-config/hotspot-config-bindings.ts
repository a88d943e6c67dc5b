import {
  checkListWrite,
  checkLocalNoticeWrite,
  checkPlanDelete,
  checkPlanWrite,
  checkPortalWrite,
  checkUserBatch,
  checkUserWrite,
  checkZoneWrite,
  MSG,
  type HotspotRows,
  type HotspotUserBatch,
  type RuleVerdict,
} from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { failure } from '../../plugins/api-envelope.js';
import type { EntityBinding } from '../../config/entity-routes.js';
import { EntityWriteRefused, type CollectionStore, type EntityRow, type SingletonStore } from '../../config/entity-store.js';
import { voucherStore } from '../voucher/voucher-public.js';
import { localUsers, type LocalUserStore } from './local-user-store.js';

const CONFIG_ENTITIES = ['hotspotZone', 'hotspotPlan', 'hotspotWhitelist', 'hotspotBlacklist'] as const;

/** Stored rows the Hotspot rules read: config rows, local users, interface names, voucher plans. */
export function readHotspotRows(ctx: AppContext): HotspotRows {
  const out: Record<string, EntityRow[]> = {};
  const rows = ctx.db
    .prepare(`SELECT entity, id, data FROM config_rows WHERE entity IN (${CONFIG_ENTITIES.map(() => '?').join(',')}) ORDER BY rowid`)
    .all(...CONFIG_ENTITIES) as Array<{ entity: string; id: string; data: string }>;
  for (const row of rows) (out[row.entity] ??= []).push({ ...(JSON.parse(row.data) as EntityRow), id: row.id });
  const names = ctx.db
    .prepare("SELECT data FROM config_rows WHERE entity IN ('networkInterface', 'vlan')")
    .all() as Array<{ data: string }>;
  return {
    ...(out as HotspotRows),
    hotspotUser: localUsers(ctx).list(),
    interfaces: names.map((r) => String((JSON.parse(r.data) as { ifname?: unknown }).ifname ?? '')).filter((n) => n !== ''),
    voucherPlans: voucherStore(ctx).plansInUse(),
  };
}

function reply(verdict: RuleVerdict) {
  if (verdict === undefined) return undefined;
  return typeof verdict === 'string' ? failure(verdict) : failure(MSG.invalid, verdict);
}

const nameTaken = () => failure(MSG.invalid, { username: 'validation.nameExists' });

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && 'code' in error && String((error as { code: unknown }).code).startsWith('SQLITE_CONSTRAINT');
}

function userStore(users: LocalUserStore): CollectionStore {
  return {
    list: () => users.list(),
    get: (id) => users.get(id),
    count: () => users.count(),
    async insert(record) {
      try {
        return await users.insert(record);
      } catch (error) {
        // Two adds of one name raced past the rule while hashing.
        if (isUniqueViolation(error)) throw new EntityWriteRefused(nameTaken());
        throw error;
      }
    },
    async update(id, record) {
      const saved = await users.update(id, record);
      if (!saved) throw new EntityWriteRefused(failure(MSG.notFound));
      return saved;
    },
    remove: (ids) => users.remove(ids),
  };
}

/** A batch is not stored: writing it creates the accounts, answered without the password. */
function batchStore(users: LocalUserStore): SingletonStore {
  return {
    read: () => undefined,
    async write(record) {
      try {
        const created = await users.insertBatch(record as unknown as HotspotUserBatch);
        const { password: _secret, ...rest } = record;
        return { ...rest, created: created.map((u) => u.username) };
      } catch (error) {
        if (isUniqueViolation(error)) throw new EntityWriteRefused(failure(MSG.invalid, { prefix: 'validation.hotspot.userExists' }));
        throw error;
      }
    },
  };
}

/**
 * The Hotspot entities' stores and cross-record rules on the derived routes: local users in
 * their own table with hashed passwords, batch creation as one journalled change, and the
 * rules of packages/schema/src/hotspot/hotspot-rules.ts.
 */
export function hotspotConfigBindings(ctx: AppContext): Record<string, EntityBinding> {
  const users = localUsers(ctx);
  const rows = () => readHotspotRows(ctx);
  const merged = (change: { record: EntityRow; previous?: EntityRow }) => ({ ...(change.previous ?? {}), ...change.record });
  return {
    hotspotZone: { rules: { checkWrite: (change) => reply(checkZoneWrite(merged(change) as never, rows())) } },
    hotspotPlan: {
      rules: {
        checkWrite: (change) => reply(checkPlanWrite(merged(change) as never, rows())),
        checkDelete: (deleted) => reply(checkPlanDelete(deleted as never, rows())),
      },
    },
    hotspotUser: {
      store: userStore(users),
      rules: { checkWrite: (change) => reply(checkUserWrite(merged(change) as never, rows())) },
    },
    hotspotUserBatch: {
      store: batchStore(users),
      rules: { checkWrite: (change) => reply(checkUserBatch(change.record as never, rows())) },
    },
    hotspotWhitelist: { rules: { checkWrite: (change) => reply(checkListWrite('hotspotWhitelist', merged(change) as never, rows())) } },
    hotspotBlacklist: { rules: { checkWrite: (change) => reply(checkListWrite('hotspotBlacklist', merged(change) as never, rows())) } },
    hotspotPortal: { rules: { checkWrite: (change) => reply(checkPortalWrite(merged(change) as never)) } },
    hotspotLocalNotice: { rules: { checkWrite: (change) => reply(checkLocalNoticeWrite(change.record as never, rows())) } },
  };
}
