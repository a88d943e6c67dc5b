import { apGroup, apMacFilter, SSIDS_PER_GROUP_MAX, wirelessSsid, type ApiFailure } from '@portico/schema';
import type { Db } from '../../plugins/db-open.js';
import { failure } from '../../plugins/api-envelope.js';
import type { EntityBinding } from '../../config/entity-routes.js';
import type { EntityRow } from '../../config/entity-store.js';

/** Failure keys of the wireless rows' cross-record rules. */
export const WIRELESS_MSG = {
  ssidMax: 'msg.ssidMax',
  groupInUse: 'msg.wirelessGroupInUse',
  unknownGroup: 'validation.wireless.unknownGroup',
} as const;

function rowsOf(db: Db, entity: string): EntityRow[] {
  return (db.prepare('SELECT id, data FROM config_rows WHERE entity = ? ORDER BY rowid').all(entity) as Array<{ id: string; data: string }>).map(
    (row) => ({ ...(JSON.parse(row.data) as EntityRow), id: row.id }),
  );
}

function groupExists(db: Db, id: unknown): boolean {
  return typeof id === 'string' && rowsOf(db, apGroup.name).some((row) => row.id === id);
}

/**
 * The rules between groups, their SSIDs and the MAC filter: an SSID names an existing group
 * and a group carries at most SSIDS_PER_GROUP_MAX (spec §8 "SSID maximum reached"); a group
 * still named by SSIDs, filter entries or bound devices is not deleted.
 */
export function wirelessBindings(db: Db, devicesInGroups: (groupIds: readonly string[]) => number): Record<string, EntityBinding> {
  return {
    [wirelessSsid.name]: {
      rules: {
        checkWrite: ({ record, previous }): ApiFailure | undefined => {
          const group = record.group ?? previous?.group;
          if (!groupExists(db, group)) return failure('msg.reviewFields', { group: WIRELESS_MSG.unknownGroup });
          const movedIn = previous === undefined || previous.group !== group;
          if (movedIn && rowsOf(db, wirelessSsid.name).filter((row) => row.group === group).length >= SSIDS_PER_GROUP_MAX) {
            return failure(WIRELESS_MSG.ssidMax);
          }
          return undefined;
        },
      },
    },
    [apMacFilter.name]: {
      rules: {
        checkWrite: ({ record, previous }) => {
          const group = record.group ?? previous?.group ?? '';
          return group === '' || groupExists(db, group) ? undefined : failure('msg.reviewFields', { group: WIRELESS_MSG.unknownGroup });
        },
      },
    },
    [apGroup.name]: {
      rules: {
        checkDelete: (rows) => {
          const ids = new Set(rows.map((row) => String(row.id)));
          const named = [...rowsOf(db, wirelessSsid.name), ...rowsOf(db, apMacFilter.name)].some((row) => ids.has(String(row.group)));
          return named || devicesInGroups([...ids]) > 0 ? failure(WIRELESS_MSG.groupInUse) : undefined;
        },
      },
    },
  };
}
