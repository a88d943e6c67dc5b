import type { OpenvpnClientInfo } from '@portico/schema';
import type { Db } from '../../plugins/db-open.js';
import type { ModuleMigration } from '../../plugins/db-open.js';
import type { OpenvpnPki, RevokedEntry } from './vpn-server-pki.js';

/**
 * The OpenVPN server's client certificates (spec §3: client names with certificate status and
 * remark). Rows live in the module's own table; each client's key is a 0600 file of the PKI.
 * A revoked or deleted certificate's serial stays in `openvpn_revoked`, so the CRL keeps
 * refusing it after its row and key are gone.
 */

export const OPENVPN_MIGRATIONS: readonly ModuleMigration[] = [
  {
    name: 'openvpn-clients',
    sql: `CREATE TABLE openvpn_clients (
      name TEXT PRIMARY KEY,
      remark TEXT NOT NULL,
      serial TEXT NOT NULL,
      certificate TEXT NOT NULL,
      issued INTEGER NOT NULL,
      revoked INTEGER
    );
    CREATE TABLE openvpn_revoked (serial TEXT PRIMARY KEY, revoked INTEGER NOT NULL);`,
  },
];

interface ClientRow {
  name: string;
  remark: string;
  serial: string;
  certificate: string;
  issued: number;
  revoked: number | null;
}

export type ClientOutcome = { ok: true } | { ok: false; msg: string };

export const OPENVPN_MSG = {
  exists: 'msg.openvpn.clientExists',
  notFound: 'msg.notFound',
  revoked: 'msg.openvpn.revoked',
  alreadyRevoked: 'msg.openvpn.alreadyRevoked',
  serverReissued: 'msg.openvpn.serverReissued',
  noHost: 'msg.openvpn.noHost',
  caRegenerated: 'msg.openvpn.caRegenerated',
} as const;

export class OpenvpnClients {
  constructor(
    private readonly db: Db,
    private readonly pki: OpenvpnPki,
    private readonly now: () => number,
  ) {}

  list(): OpenvpnClientInfo[] {
    const rows = this.db.prepare('SELECT * FROM openvpn_clients ORDER BY name').all() as ClientRow[];
    return rows.map((row) => ({
      name: row.name,
      remark: row.remark,
      serial: row.serial,
      issued: row.issued,
      revoked: row.revoked,
      status: row.revoked === null ? 'valid' : 'revoked',
    }));
  }

  get(name: string): ClientRow | undefined {
    return this.db.prepare('SELECT * FROM openvpn_clients WHERE name = ?').get(name) as ClientRow | undefined;
  }

  revokedEntries(): RevokedEntry[] {
    return this.db.prepare('SELECT serial, revoked FROM openvpn_revoked ORDER BY revoked, serial').all() as RevokedEntry[];
  }

  async add(name: string, remark: string): Promise<ClientOutcome> {
    // Names differ in case only on a case-sensitive system: refuse those too (profile file names).
    const clash = this.db.prepare('SELECT 1 FROM openvpn_clients WHERE lower(name) = lower(?)').get(name);
    if (clash) return { ok: false, msg: OPENVPN_MSG.exists };
    const issued = await this.pki.issueClient(name);
    try {
      this.db
        .prepare('INSERT INTO openvpn_clients (name, remark, serial, certificate, issued, revoked) VALUES (?, ?, ?, ?, ?, NULL)')
        .run(name, remark, issued.serial, issued.certificate, issued.issued);
    } catch (error) {
      // Another request added the same name meanwhile: its key file is the one that stays.
      if (String(error).includes('UNIQUE')) return { ok: false, msg: OPENVPN_MSG.exists };
      throw error;
    }
    return { ok: true };
  }

  /** Marks the certificate revoked and rewrites the CRL; the caller cuts live sessions off. */
  async revoke(name: string): Promise<ClientOutcome> {
    const row = this.get(name);
    if (!row) return { ok: false, msg: OPENVPN_MSG.notFound };
    if (row.revoked !== null) return { ok: false, msg: OPENVPN_MSG.alreadyRevoked };
    const at = this.now();
    this.db.transaction(() => {
      this.db.prepare('UPDATE openvpn_clients SET revoked = ? WHERE name = ?').run(at, name);
      this.db.prepare('INSERT OR IGNORE INTO openvpn_revoked (serial, revoked) VALUES (?, ?)').run(row.serial, at);
    })();
    await this.pki.writeCrl(this.revokedEntries());
    return { ok: true };
  }

  /**
   * After a new authority: every valid client gets a new key and certificate of it (profiles
   * must be downloaded again); revoked clients stay revoked. Old serials mean nothing to the
   * new authority, so its CRL starts empty.
   */
  async reissueAll(): Promise<void> {
    this.db.prepare('DELETE FROM openvpn_revoked').run();
    for (const row of this.db.prepare('SELECT name FROM openvpn_clients WHERE revoked IS NULL ORDER BY name').all() as Array<{ name: string }>) {
      const issued = await this.pki.issueClient(row.name);
      this.db.prepare('UPDATE openvpn_clients SET serial = ?, certificate = ?, issued = ? WHERE name = ?').run(issued.serial, issued.certificate, issued.issued, row.name);
    }
    await this.pki.writeCrl(this.revokedEntries());
  }

  /** Removes the client's row and key; a valid certificate is revoked first, so it cannot come back. */
  async remove(name: string): Promise<ClientOutcome> {
    const row = this.get(name);
    if (!row) return { ok: false, msg: OPENVPN_MSG.notFound };
    if (row.revoked === null) await this.revoke(name);
    this.db.prepare('DELETE FROM openvpn_clients WHERE name = ?').run(name);
    await this.pki.removeClientKey(name);
    return { ok: true };
  }
}
