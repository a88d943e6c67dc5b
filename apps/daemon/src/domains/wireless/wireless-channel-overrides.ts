import type { ModuleMigration } from '../../plugins/db-open.js';
import type { Db } from '../../plugins/db-open.js';

/**
 * The channels a saved channel plan gave each AP radio. They stand in for `auto` in the
 * AP's group profile; a group with a fixed channel keeps it. Forgetting a device drops them.
 */
export const WIRELESS_CHANNEL_MIGRATIONS: ModuleMigration[] = [
  {
    name: 'channel overrides',
    sql: `CREATE TABLE wireless_channel_overrides (
      serial TEXT NOT NULL,
      band TEXT NOT NULL CHECK (band IN ('2g', '5g')),
      channel INTEGER NOT NULL,
      width INTEGER NOT NULL,
      PRIMARY KEY (serial, band)
    ) WITHOUT ROWID`,
  },
];

export interface ChannelOverride {
  band: '2g' | '5g';
  channel: number;
  width: number;
}

export class WirelessChannelOverrides {
  /** Bumped on every change, so cached configurations know to rebuild. */
  version = 0;
  private readonly all = new Map<string, ChannelOverride[]>();

  constructor(private readonly db: Db) {
    for (const row of db.prepare('SELECT serial, band, channel, width FROM wireless_channel_overrides ORDER BY serial, band').all() as Array<
      ChannelOverride & { serial: string }
    >) {
      this.all.set(row.serial, [...(this.all.get(row.serial) ?? []), { band: row.band, channel: row.channel, width: row.width }]);
    }
  }

  of(serial: string): readonly ChannelOverride[] {
    return this.all.get(serial) ?? [];
  }

  /** Replaces the overrides of the given devices with a plan's channels, in one transaction. */
  save(plan: ReadonlyArray<{ serial: string; radios: readonly ChannelOverride[] }>): void {
    const remove = this.db.prepare('DELETE FROM wireless_channel_overrides WHERE serial = ?');
    const insert = this.db.prepare('INSERT INTO wireless_channel_overrides (serial, band, channel, width) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const { serial, radios } of plan) {
        remove.run(serial);
        for (const r of radios) insert.run(serial, r.band, r.channel, r.width);
      }
    })();
    for (const { serial, radios } of plan) this.all.set(serial, radios.map((r) => ({ ...r })));
    this.version++;
  }

  forget(serial: string): void {
    this.db.prepare('DELETE FROM wireless_channel_overrides WHERE serial = ?').run(serial);
    if (this.all.delete(serial)) this.version++;
  }
}
