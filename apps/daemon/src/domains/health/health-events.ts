import type { HealthEvent, HealthFindingKind } from '@portico/schema';
import type { Db } from '../../plugins/db-open.js';
import type { ModuleMigration } from '../../plugins/db-open.js';

export const HEALTH_MIGRATIONS: readonly ModuleMigration[] = [
  {
    name: 'health-events',
    sql: `CREATE TABLE health_events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      time INTEGER NOT NULL,
      kind TEXT NOT NULL,
      interface TEXT NOT NULL,
      port TEXT NOT NULL,
      ip TEXT NOT NULL,
      mac TEXT NOT NULL
    )`,
  },
  { name: 'health-events-other-mac', sql: `ALTER TABLE health_events ADD COLUMN other_mac TEXT NOT NULL DEFAULT ''` },
];

/** Events kept; older ones go as new ones come, so a flapping LAN cannot fill the disk. */
export const HEALTH_EVENTS_KEPT = 1000;

export type NewHealthEvent = Omit<HealthEvent, 'id'>;

/** The security event log: one row per finding first seen on an interface. */
export class HealthEventStore {
  /** `recorded` hears each event once it is stored (the security-event signal). */
  constructor(
    private readonly db: Db,
    private readonly recorded: (event: HealthEvent) => void = () => undefined,
  ) {}

  append(event: NewHealthEvent): void {
    const id = this.db.transaction(() => {
      const row = this.db
        .prepare('INSERT INTO health_events (time, kind, interface, port, ip, mac, other_mac) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(event.time, event.kind, event.interface, event.port, event.ip, event.mac, event.otherMac);
      this.db.prepare('DELETE FROM health_events WHERE id <= (SELECT MAX(id) FROM health_events) - ?').run(HEALTH_EVENTS_KEPT);
      return Number(row.lastInsertRowid);
    })();
    this.recorded({ id, ...event });
  }

  /** Newest first. */
  list(limit: number, offset = 0): { items: HealthEvent[]; total: number } {
    const items = this.db
      .prepare('SELECT id, time, kind, interface, port, ip, mac, other_mac AS otherMac FROM health_events ORDER BY id DESC LIMIT ? OFFSET ?')
      .all(limit, offset) as HealthEvent[];
    const { total } = this.db.prepare('SELECT COUNT(*) AS total FROM health_events').get() as { total: number };
    return { items: items.map((e) => ({ ...e, kind: e.kind as HealthFindingKind })), total };
  }

  clear(): number {
    return this.db.prepare('DELETE FROM health_events').run().changes;
  }
}
