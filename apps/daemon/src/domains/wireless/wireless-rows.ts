import { apGroup, apMacFilter, cpeProfile, wirelessSsid, type ApGroup, type ApMacFilter, type CpeProfile, type WirelessSsid } from '@portico/schema';
import type { Db } from '../../plugins/db-open.js';
import type { EntityRow } from '../../config/entity-store.js';

/** The console's wireless rows (config_rows), as the controller builds configurations from them. */
export interface WirelessRows {
  groups: ReadonlyMap<string, ApGroup>;
  ssids: readonly WirelessSsid[];
  filters: readonly ApMacFilter[];
  profiles: ReadonlyMap<string, CpeProfile>;
}

export const WIRELESS_ENTITIES = [apGroup.name, wirelessSsid.name, apMacFilter.name, cpeProfile.name] as const;

export function entityRows(db: Db, entity: string): EntityRow[] {
  return (db.prepare('SELECT id, data FROM config_rows WHERE entity = ? ORDER BY rowid').all(entity) as Array<{ id: string; data: string }>).map(
    (row) => ({ ...(JSON.parse(row.data) as EntityRow), id: row.id }),
  );
}

export function readWirelessRows(db: Db): WirelessRows {
  const byId = <T extends { id: string }>(rows: EntityRow[]) => new Map(rows.map((row) => [String(row.id), row as unknown as T]));
  return {
    groups: byId<ApGroup>(entityRows(db, apGroup.name)),
    ssids: entityRows(db, wirelessSsid.name) as unknown as WirelessSsid[],
    filters: entityRows(db, apMacFilter.name) as unknown as ApMacFilter[],
    profiles: byId<CpeProfile>(entityRows(db, cpeProfile.name)),
  };
}

/**
 * A value that changes whenever any wireless row is added, changed or removed, however it
 * was written (the console, a revert, a restore): the newest write time and the row count.
 */
export function wirelessRowsVersion(db: Db): string {
  const row = db
    .prepare(`SELECT MAX(updated_at) AS at, COUNT(*) AS n FROM config_rows WHERE entity IN (${WIRELESS_ENTITIES.map(() => '?').join(',')})`)
    .get(...WIRELESS_ENTITIES) as { at: number | null; n: number };
  return `${row.at ?? 0}:${row.n}`;
}
