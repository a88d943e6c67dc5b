import type { Db, ModuleMigration } from '../../plugins/db-open.js';

export const EMAIL_MIGRATIONS: readonly ModuleMigration[] = [
  {
    name: 'email-queue',
    sql: `CREATE TABLE email_queue (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      created INTEGER NOT NULL,
      event TEXT NOT NULL,
      recipient TEXT NOT NULL,
      message TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      last_error TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE email_counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)`,
  },
];

/** Messages waiting at most; beyond it the oldest goes (and is counted), so a dead server cannot fill the disk. */
export const EMAIL_QUEUE_CAP = 200;

export interface QueuedMail {
  id: number;
  created: number;
  event: string;
  recipient: string;
  message: string;
  attempts: number;
  lastError: string;
}

/**
 * The outgoing notices, in the database (WAL, synchronous=FULL) so a restart loses none: a
 * message leaves the table only once the server took it or it was given up.
 */
export class MailQueue {
  constructor(
    private readonly db: Db,
    private readonly cap = EMAIL_QUEUE_CAP,
  ) {}

  /** Adds messages; answers those dropped to stay within the cap, oldest first. */
  add(items: ReadonlyArray<Pick<QueuedMail, 'created' | 'event' | 'recipient' | 'message'>>): QueuedMail[] {
    return this.db.transaction(() => {
      const insert = this.db.prepare('INSERT INTO email_queue (created, event, recipient, message) VALUES (?, ?, ?, ?)');
      for (const item of items) insert.run(item.created, item.event, item.recipient, item.message);
      const over = this.size() - this.cap;
      if (over <= 0) return [];
      const dropped = this.db.prepare(`${SELECT} ORDER BY id LIMIT ?`).all(over) as QueuedMail[];
      this.db.prepare('DELETE FROM email_queue WHERE id IN (SELECT id FROM email_queue ORDER BY id LIMIT ?)').run(over);
      this.count('dropped', over);
      return dropped;
    })();
  }

  /** Oldest first. */
  next(): QueuedMail | undefined {
    return this.db.prepare(`${SELECT} ORDER BY id LIMIT 1`).get() as QueuedMail | undefined;
  }

  list(limit = this.cap): QueuedMail[] {
    return this.db.prepare(`${SELECT} ORDER BY id LIMIT ?`).all(limit) as QueuedMail[];
  }

  remove(id: number): void {
    this.db.prepare('DELETE FROM email_queue WHERE id = ?').run(id);
  }

  failed(id: number, error: string): number {
    this.db.prepare('UPDATE email_queue SET attempts = attempts + 1, last_error = ? WHERE id = ?').run(error, id);
    return (this.db.prepare('SELECT attempts FROM email_queue WHERE id = ?').get(id) as { attempts: number } | undefined)?.attempts ?? 0;
  }

  size(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM email_queue').get() as { n: number }).n;
  }

  count(name: 'dropped' | 'sent' | 'given-up', by = 1): void {
    this.db
      .prepare('INSERT INTO email_counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + excluded.value')
      .run(name, by);
  }

  counter(name: 'dropped' | 'sent' | 'given-up'): number {
    return (this.db.prepare('SELECT value FROM email_counters WHERE name = ?').get(name) as { value: number } | undefined)?.value ?? 0;
  }
}

const SELECT = 'SELECT id, created, event, recipient, message, attempts, last_error AS lastError FROM email_queue';
