import { MSG, QOS_RULES, type QosRows } from '@portico/schema';
import type { Db } from '../../plugins/db-open.js';
import { failure } from '../../plugins/api-envelope.js';
import type { EntityBinding } from '../../config/entity-routes.js';
import type { EntityRow } from '../../config/entity-store.js';

const READ_ENTITIES = ['networkInterface', 'qosLoadBalance', 'qosIsp'];

/** Stored rows the Smart QoS cross-record rules read: WAN names, load-balance entries, ISP files. */
export function readQosRows(db: Db): QosRows {
  const out: Record<string, EntityRow[]> = {};
  const rows = db
    .prepare(`SELECT entity, id, data FROM config_rows WHERE entity IN (${READ_ENTITIES.map(() => '?').join(',')}) ORDER BY rowid`)
    .all(...READ_ENTITIES) as Array<{ entity: string; id: string; data: string }>;
  for (const row of rows) (out[row.entity] ??= []).push({ ...(JSON.parse(row.data) as EntityRow), id: row.id });
  const wanNames = (out.networkInterface ?? []).filter((row) => row.role === 'wan').map((row) => String(row.ifname));
  return { wanNames, qosLoadBalance: out.qosLoadBalance as never, qosIsp: out.qosIsp as never };
}

/** The Smart QoS cross-record rules (packages/schema/src/qos/qos-rules.ts) on the write path. */
export function qosBindings(db: Db): Record<string, EntityBinding> {
  const bindings: Record<string, EntityBinding> = {};
  for (const [name, rules] of Object.entries(QOS_RULES)) {
    const write = rules.write as (candidate: never, rows: QosRows) => Record<string, string> | undefined;
    bindings[name] = {
      rules: {
        checkWrite: (change) => {
          const verdict = write({ ...(change.previous ?? {}), ...change.record } as never, readQosRows(db));
          return verdict === undefined ? undefined : failure(MSG.invalid, verdict);
        },
      },
    };
  }
  return bindings;
}
