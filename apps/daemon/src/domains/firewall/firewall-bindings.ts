import { FIREWALL_RULES, MSG, type FirewallRows } from '@portico/schema';
import type { Db } from '../../plugins/db-open.js';
import { failure } from '../../plugins/api-envelope.js';
import type { EntityBinding } from '../../config/entity-routes.js';
import type { EntityRow } from '../../config/entity-store.js';

const READ_ENTITIES = ['networkInterface', 'vlan', 'firewallPortMapping', 'firewallHostMapping', 'firewallDmz'];

/** Stored rows the firewall's cross-record rules read. */
export function readFirewallRows(db: Db): FirewallRows {
  const out: Record<string, EntityRow[]> = {};
  const rows = db
    .prepare(`SELECT entity, id, data FROM config_rows WHERE entity IN (${READ_ENTITIES.map(() => '?').join(',')}) ORDER BY rowid`)
    .all(...READ_ENTITIES) as Array<{ entity: string; id: string; data: string }>;
  for (const row of rows) (out[row.entity] ??= []).push({ ...(JSON.parse(row.data) as EntityRow), id: row.id });
  return out as FirewallRows;
}

/** The firewall's cross-record rules (packages/schema/src/firewall/firewall-rules.ts) on the write path. */
export function firewallBindings(db: Db): Record<string, EntityBinding> {
  const bindings: Record<string, EntityBinding> = {};
  for (const [name, rules] of Object.entries(FIREWALL_RULES)) {
    const write = rules.write as (candidate: never, rows: FirewallRows) => Record<string, string> | string | undefined;
    bindings[name] = {
      rules: {
        checkWrite: (change) => {
          const verdict = write({ ...(change.previous ?? {}), ...change.record } as never, readFirewallRows(db));
          if (verdict === undefined) return undefined;
          return typeof verdict === 'string' ? failure(verdict) : failure(MSG.invalid, verdict);
        },
      },
    };
  }
  return bindings;
}
