import { apGroup, apMacFilter, cpeProfile, SSIDS_PER_GROUP_MAX, wirelessSsid, type ApiFailure } from '@portico/schema';
import type { Db } from '../../plugins/db-open.js';
import { failure } from '../../plugins/api-envelope.js';
import type { EntityBinding } from '../../config/entity-routes.js';
import { entityRows } from './wireless-rows.js';

/** Failure keys of the wireless rows' cross-record rules. */
export const WIRELESS_MSG = {
  ssidMax: 'msg.ssidMax',
  groupInUse: 'msg.wirelessGroupInUse',
  profileInUse: 'msg.cpeProfileInUse',
  unknownGroup: 'validation.wireless.unknownGroup',
} as const;


function groupExists(db: Db, id: unknown): boolean {
  return typeof id === 'string' && entityRows(db, apGroup.name).some((row) => row.id === id);
}

/**
 * The rules between groups, their SSIDs and the MAC filter: an SSID names an existing group
 * and a group carries at most SSIDS_PER_GROUP_MAX (spec §8 "SSID maximum reached"); a group
 * still named by SSIDs, filter entries or bound devices is not deleted, nor a CPE profile CPEs
 * are bound to; every change reaches the devices (`rowsChanged`).
 */
export function wirelessBindings(
  db: Db,
  devicesInGroups: (groupIds: readonly string[]) => number,
  rowsChanged: () => void,
): Record<string, EntityBinding> {
  // Devices follow every change of their group, SSIDs, MAC list or profile.
  const follow = { afterWrite: rowsChanged, afterDelete: rowsChanged };
  const inUse = (rows: readonly { id?: unknown }[]) => devicesInGroups(rows.map((row) => String(row.id))) > 0;
  return {
    [wirelessSsid.name]: {
      rules: {
        checkWrite: ({ record, previous }): ApiFailure | undefined => {
          const group = record.group ?? previous?.group;
          if (!groupExists(db, group)) return failure('msg.reviewFields', { group: WIRELESS_MSG.unknownGroup });
          const movedIn = previous === undefined || previous.group !== group;
          if (movedIn && entityRows(db, wirelessSsid.name).filter((row) => row.group === group).length >= SSIDS_PER_GROUP_MAX) {
            return failure(WIRELESS_MSG.ssidMax);
          }
          return undefined;
        },
        ...follow,
      },
    },
    [apMacFilter.name]: {
      rules: {
        checkWrite: ({ record, previous }) => {
          const group = record.group ?? previous?.group ?? '';
          return group === '' || groupExists(db, group) ? undefined : failure('msg.reviewFields', { group: WIRELESS_MSG.unknownGroup });
        },
        ...follow,
      },
    },
    [apGroup.name]: {
      rules: {
        checkDelete: (rows) => {
          const ids = new Set(rows.map((row) => String(row.id)));
          const named = [...entityRows(db, wirelessSsid.name), ...entityRows(db, apMacFilter.name)].some((row) => ids.has(String(row.group)));
          return named || inUse(rows) ? failure(WIRELESS_MSG.groupInUse) : undefined;
        },
        ...follow,
      },
    },
    [cpeProfile.name]: {
      rules: {
        checkDelete: (rows) => (inUse(rows) ? failure(WIRELESS_MSG.profileInUse) : undefined),
        ...follow,
      },
    },
  };
}
