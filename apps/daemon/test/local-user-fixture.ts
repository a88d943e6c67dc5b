import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Makes a local account look as one created before every password was sealed: its sealed
 * password gone, its hash kept. Through a second connection to the daemon's database (WAL), as
 * nothing in the API can do it.
 */
export function forgetSealedPassword(stateDir: string, username: string): void {
  const db = new Database(join(stateDir, 'portico.db'));
  try {
    const changed = db.prepare('UPDATE hotspot_local_users SET sealed_password = NULL WHERE username = ?').run(username).changes;
    if (changed !== 1) throw new Error(`no account ${username}`);
  } finally {
    db.close();
  }
}
