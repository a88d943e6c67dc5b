import type Database from 'better-sqlite3';
import type { Db, ModuleMigration } from '../../../plugins/db-open.js';

/** The wireless module's own tables: the managed APs and CPEs, keyed by serial. */
export const WIRELESS_DEVICE_MIGRATIONS: ModuleMigration[] = [
  {
    name: 'wireless devices',
    sql: `
      CREATE TABLE wireless_devices (
        id INTEGER PRIMARY KEY,
        serial TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL DEFAULT '',
        kind TEXT NOT NULL CHECK (kind IN ('ap', 'cpe')),
        model TEXT NOT NULL DEFAULT '',
        firmware TEXT NOT NULL DEFAULT '',
        group_id TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'adopted', 'revoked')),
        first_seen INTEGER,
        last_seen INTEGER,
        last_address TEXT NOT NULL DEFAULT '',
        desired_uuid INTEGER NOT NULL DEFAULT 0,
        desired_digest TEXT,
        applied_uuid INTEGER NOT NULL DEFAULT 0,
        config_outcome TEXT CHECK (config_outcome IN ('applied', 'appliedWithChanges', 'rejected')),
        outcome_uuid INTEGER,
        config_reasons TEXT,
        -- What the list's search box matches, lower-cased (ASCII) once when a row is written.
        search_text TEXT GENERATED ALWAYS AS (lower(name) || ' ' || serial || ' ' || lower(model) || ' ' || last_address) STORED
      );
      -- One index per sort of the device list, led by the sort key and carrying the filter
      -- columns, so a page is found by walking one index without reading rows.
      CREATE INDEX wireless_devices_by_name ON wireless_devices(name COLLATE NOCASE, serial, kind, status);
      CREATE INDEX wireless_devices_by_serial ON wireless_devices(serial, kind, status);
      CREATE INDEX wireless_devices_by_status ON wireless_devices(status, serial, kind);
      CREATE INDEX wireless_devices_by_seen ON wireless_devices(last_seen, serial, kind, status);
      CREATE INDEX wireless_devices_by_group ON wireless_devices(group_id, serial, kind, status);
    `,
  },
];

export type WirelessDeviceKind = 'ap' | 'cpe';
export type WirelessDeviceStatus = 'pending' | 'adopted' | 'revoked';
export type ConfigOutcome = 'applied' | 'appliedWithChanges' | 'rejected';

/** One reason a device gave for changing or refusing part of a configuration. */
export interface ConfigRejection {
  /** The part of the configuration, as JSON text (bounded). */
  parameter: string;
  reason: string;
  /** What the device used instead, as JSON text; absent when it dropped the part. */
  substitution?: string;
}

export interface WirelessDeviceRecord {
  serial: string;
  name: string;
  kind: WirelessDeviceKind;
  model: string;
  firmware: string;
  groupId: string | null;
  status: WirelessDeviceStatus;
  /** Milliseconds; null for a device adopted by serial before it ever connected. */
  firstSeen: number | null;
  lastSeen: number | null;
  lastAddress: string;
  /** Configuration id the controller wants the device to run (0: none yet). */
  desiredUuid: number;
  /** Digest of the configuration behind desiredUuid, so an unchanged one keeps its id. */
  desiredDigest: string | null;
  /** Configuration id the device last said it runs. */
  appliedUuid: number;
  configOutcome: ConfigOutcome | null;
  /** The configuration id configOutcome is about. */
  outcomeUuid: number | null;
  configReasons: ConfigRejection[];
}

export const WIRELESS_SORT_KEYS = ['name', 'serial', 'status', 'lastSeen', 'group'] as const;
export type WirelessSortKey = (typeof WIRELESS_SORT_KEYS)[number];

export interface WirelessPageQuery {
  offset: number;
  limit: number;
  sort?: WirelessSortKey;
  order?: 'asc' | 'desc';
  /** Part of the name, serial, model or last address; case-insensitive for ASCII. */
  search?: string;
  status?: WirelessDeviceStatus;
  kind?: WirelessDeviceKind;
}

export interface WirelessPage {
  rows: WirelessDeviceRecord[];
  total: number;
}

/** Bounds of what a device's reasons may occupy in the table. */
const MAX_REASONS = 32;
const MAX_REASON_JSON = 512;
/** A page never holds more than this many rows. */
export const WIRELESS_PAGE_MAX = 500;

interface DeviceRow {
  id: number;
  search_text: string;
  serial: string;
  name: string;
  kind: WirelessDeviceKind;
  model: string;
  firmware: string;
  group_id: string | null;
  status: WirelessDeviceStatus;
  first_seen: number | null;
  last_seen: number | null;
  last_address: string;
  desired_uuid: number;
  desired_digest: string | null;
  applied_uuid: number;
  config_outcome: ConfigOutcome | null;
  outcome_uuid: number | null;
  config_reasons: string | null;
}

function toRecord(row: DeviceRow): WirelessDeviceRecord {
  return {
    serial: row.serial,
    name: row.name,
    kind: row.kind,
    model: row.model,
    firmware: row.firmware,
    groupId: row.group_id,
    status: row.status,
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    lastAddress: row.last_address,
    desiredUuid: row.desired_uuid,
    desiredDigest: row.desired_digest,
    appliedUuid: row.applied_uuid,
    configOutcome: row.config_outcome,
    outcomeUuid: row.outcome_uuid,
    configReasons: row.config_reasons ? (JSON.parse(row.config_reasons) as ConfigRejection[]) : [],
  };
}

/** JSON text of a device-given value, cut to a bound (the value came from a device). */
export function boundedJson(value: unknown, max = MAX_REASON_JSON): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.length <= max ? text : text.slice(0, max);
}

function reasonsJson(reasons: readonly ConfigRejection[]): string | null {
  if (reasons.length === 0) return null;
  return JSON.stringify(
    reasons.slice(0, MAX_REASONS).map((r) => ({
      parameter: r.parameter.slice(0, MAX_REASON_JSON),
      reason: r.reason.slice(0, MAX_REASON_JSON),
      ...(r.substitution === undefined ? {} : { substitution: r.substitution.slice(0, MAX_REASON_JSON) }),
    })),
  );
}

/** SQL order expressions per sort key; the serial breaks ties so pages never overlap. */
const ORDER_BY: Record<WirelessSortKey, string> = {
  name: 'd.name COLLATE NOCASE',
  serial: 'd.serial',
  status: 'd.status',
  lastSeen: 'd.last_seen',
  group: 'd.group_id',
};

/**
 * The wireless devices in SQLite (migration "wireless devices"). Synchronous like every store
 * here; the controller calls it from its message handlers, so every write is one statement or
 * one transaction. The paging statements are prepared once per shape (filters × sort × order).
 */
export class WirelessDeviceStore {
  private readonly selectOne;
  private readonly upsertSeen;
  private readonly updateLastSeen;
  private readonly upsertAdopted;
  private readonly updateGroup;
  private readonly updateName;
  private readonly updateStatus;
  private readonly deleteOne;
  private readonly updateDesired;
  private readonly updateApplied;
  private readonly updateOutcome;
  private readonly updateFirmware;
  private readonly selectGroup;
  private readonly pageStatements = new Map<string, { rows: Database.Statement; count: Database.Statement }>();

  constructor(private readonly db: Db) {
    this.selectOne = db.prepare('SELECT * FROM wireless_devices WHERE serial = ?');
    this.upsertSeen = db.prepare(
      `INSERT INTO wireless_devices (serial, kind, model, firmware, status, first_seen, last_seen, last_address)
       VALUES (@serial, @kind, @model, @firmware, 'pending', @at, @at, @address)
       ON CONFLICT (serial) DO UPDATE SET kind = excluded.kind, model = excluded.model, firmware = excluded.firmware,
         last_seen = excluded.last_seen, last_address = excluded.last_address, first_seen = COALESCE(first_seen, excluded.first_seen)`,
    );
    this.updateLastSeen = db.prepare('UPDATE wireless_devices SET last_seen = ? WHERE serial = ?');
    this.upsertAdopted = db.prepare(
      `INSERT INTO wireless_devices (serial, name, kind, status, group_id) VALUES (@serial, @name, 'ap', 'adopted', @groupId)
       ON CONFLICT (serial) DO UPDATE SET status = 'adopted', group_id = @groupId, name = COALESCE(@rename, name)`,
    );
    this.updateGroup = db.prepare("UPDATE wireless_devices SET group_id = ? WHERE serial = ? AND status = 'adopted'");
    this.updateName = db.prepare('UPDATE wireless_devices SET name = ? WHERE serial = ?');
    this.updateStatus = db.prepare('UPDATE wireless_devices SET status = ? WHERE serial = ?');
    this.deleteOne = db.prepare('DELETE FROM wireless_devices WHERE serial = ?');
    this.updateDesired = db.prepare('UPDATE wireless_devices SET desired_uuid = ?, desired_digest = ? WHERE serial = ?');
    this.updateApplied = db.prepare('UPDATE wireless_devices SET applied_uuid = ? WHERE serial = ? AND applied_uuid <> ?');
    this.updateOutcome = db.prepare(
      'UPDATE wireless_devices SET config_outcome = ?, outcome_uuid = ?, config_reasons = ? WHERE serial = ?',
    );
    this.updateFirmware = db.prepare('UPDATE wireless_devices SET firmware = ? WHERE serial = ?');
    this.selectGroup = db.prepare("SELECT serial FROM wireless_devices WHERE group_id = ? AND status = 'adopted'");
  }

  /** Runs many writes as one transaction (one commit, one sync to disk). */
  batch(writes: () => void): void {
    this.db.transaction(writes)();
  }

  get(serial: string): WirelessDeviceRecord | undefined {
    const row = this.selectOne.get(serial) as DeviceRow | undefined;
    return row && toRecord(row);
  }

  /**
   * A device connected: a new serial is recorded as pending; a known one gets its model,
   * firmware, address and last seen updated. One statement.
   */
  recordConnect(seen: { serial: string; kind: WirelessDeviceKind; model: string; firmware: string; address: string; at: number }): void {
    this.upsertSeen.run(seen);
  }

  /** Last seen of many devices in one transaction (the controller flushes them periodically). */
  recordSeen(entries: Iterable<readonly [serial: string, at: number]>): void {
    this.db.transaction(() => {
      for (const [serial, at] of entries) this.updateLastSeen.run(at, serial);
    })();
  }

  /**
   * Takes a device under management in a group; a serial never seen is recorded ahead of its
   * first connection. A name given replaces the current one.
   */
  adopt(serial: string, groupId: string, name?: string): void {
    this.upsertAdopted.run({ serial, groupId, name: name ?? '', rename: name ?? null });
  }

  /** Moves an adopted device to another group; false when it is not adopted. */
  bind(serial: string, groupId: string): boolean {
    return this.updateGroup.run(groupId, serial).changes > 0;
  }

  rename(serial: string, name: string): boolean {
    return this.updateName.run(name, serial).changes > 0;
  }

  /** Refuses the device from now on (its certificate is no longer trusted). */
  revoke(serial: string): boolean {
    return this.updateStatus.run('revoked', serial).changes > 0;
  }

  /** Removes the device; if it connects again it is a new, pending device. */
  forget(serial: string): boolean {
    return this.deleteOne.run(serial).changes > 0;
  }

  setDesiredConfig(serial: string, uuid: number, digest: string): void {
    this.updateDesired.run(uuid, digest, serial);
  }

  /** Many desired configurations in one transaction (a group change pushed to its devices). */
  setDesiredConfigs(entries: ReadonlyArray<{ serial: string; uuid: number; digest: string }>): void {
    this.db.transaction(() => {
      for (const e of entries) this.updateDesired.run(e.uuid, e.digest, e.serial);
    })();
  }

  /** The configuration id the device runs; writes only when it changed. */
  recordApplied(serial: string, uuid: number): void {
    this.updateApplied.run(uuid, serial, uuid);
  }

  recordConfigOutcome(serial: string, uuid: number, outcome: ConfigOutcome, reasons: readonly ConfigRejection[]): void {
    this.updateOutcome.run(outcome, uuid, reasonsJson(reasons), serial);
  }

  recordFirmware(serial: string, firmware: string): void {
    this.updateFirmware.run(firmware, serial);
  }

  /** Adopted devices of a group: the ones a change of the group's settings is pushed to. */
  serialsInGroup(groupId: string): string[] {
    return (this.selectGroup.all(groupId) as Array<{ serial: string }>).map((r) => r.serial);
  }

  /** One page of the device list with the total that matches the filters. */
  page(query: WirelessPageQuery): WirelessPage {
    const sort = query.sort ?? 'name';
    const order = query.order === 'desc' ? 'DESC' : 'ASC';
    // ASCII only, as SQLite's lower() folds the stored side.
    const search = query.search?.trim().replace(/[A-Z]/g, (c) => c.toLowerCase()) ?? '';
    const statements = this.pageStatement(sort, order, query.kind !== undefined, query.status !== undefined, search !== '');
    const params = { kind: query.kind ?? null, status: query.status ?? null, search };
    const limit = Math.max(0, Math.min(WIRELESS_PAGE_MAX, Math.floor(query.limit)));
    const offset = Math.max(0, Math.floor(query.offset));
    const rows = (statements.rows.all({ ...params, limit, offset }) as DeviceRow[]).map(toRecord);
    const total = (statements.count.get(params) as { n: number }).n;
    return { rows, total };
  }

  private pageStatement(sort: WirelessSortKey, direction: 'ASC' | 'DESC', byKind: boolean, byStatus: boolean, bySearch: boolean) {
    const key = `${sort}:${direction}:${byKind}:${byStatus}:${bySearch}`;
    let statements = this.pageStatements.get(key);
    if (!statements) {
      const where: string[] = [];
      if (byKind) where.push('kind = @kind');
      if (byStatus) where.push('status = @status');
      // instr() rather than LIKE: the search text needs no escaping.
      if (bySearch) where.push('instr(search_text, @search) > 0');
      const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
      const order = `ORDER BY ${ORDER_BY[sort]} ${direction}, d.serial ${direction}`;
      statements = {
        // The page's ids from the index first, then only those rows (rows are not sorted whole).
        rows: this.db.prepare(
          `SELECT d.* FROM (SELECT d.id FROM wireless_devices AS d ${clause} ${order} LIMIT @limit OFFSET @offset) AS p
           JOIN wireless_devices AS d ON d.id = p.id ${order}`,
        ),
        count: this.db.prepare(`SELECT COUNT(*) AS n FROM wireless_devices ${clause}`),
      };
      this.pageStatements.set(key, statements);
    }
    return statements;
  }
}
