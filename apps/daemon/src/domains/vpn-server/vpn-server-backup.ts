import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { isOpenvpnClientName, OPENVPN_REMARK_MAX } from '@portico/schema';
import { backupTimestamp, countedCapture, countedContent, firstIssue, rawRowId, refuseRow, type BackupPart } from '../../config/backup-part.js';
import type { AppContext } from '../../app-context.js';
import { openvpnPkiDir } from './vpn-server-openvpn.js';
import { pkiFiles } from './vpn-server-pki.js';

/**
 * The OpenVPN server's PKI in a backup: the part `vpn-server`, content `{ pki, clients,
 * revoked }`: the CA's and server's keys and certificates, the CRL, each client's row with its
 * key, and the revoked serials. Private keys travel only inside the sealed archive; restored,
 * they are written to a folder beside the current one (keys 0600) and swapped in as the
 * restore's last step. A factory reset empties the tables and removes the whole PKI; a new
 * one is made at the next start.
 */

const COUNTED = ['openvpnClients', 'openvpnRevoked'] as const;
const MAX_CLIENTS = 10_000;
const PEM = (label: string) => new RegExp(`^-----BEGIN ${label}-----\\n[A-Za-z0-9+/=\\n]{1,20000}-----END ${label}-----\\n$`);
const CERT = z.string().regex(PEM('CERTIFICATE'));
const KEY = z.string().regex(PEM('PRIVATE KEY'));
const SERIAL = z.string().regex(/^[0-9a-f]{1,40}$/);

const contentSchema = z
  .object({
    pki: z.object({ caKey: KEY, caCert: CERT, serverKey: KEY, serverCert: CERT, crl: z.string().regex(PEM('X509 CRL')) }).strict(),
    openvpnClients: z.array(z.unknown()).max(MAX_CLIENTS),
    openvpnRevoked: z.array(z.unknown()).max(MAX_CLIENTS * 4),
  })
  .strict();

const clientRecord = z
  .object({
    name: z.string(),
    remark: z.string().max(OPENVPN_REMARK_MAX),
    serial: SERIAL,
    certificate: CERT,
    issued: backupTimestamp,
    revoked: backupTimestamp.nullable(),
    key: KEY.nullable(),
  })
  .strict();
const revokedRecord = z.object({ serial: SERIAL, revoked: backupTimestamp }).strict();

type ClientRecord = z.infer<typeof clientRecord>;
export interface VpnServerBackupState {
  pki: z.infer<typeof contentSchema>['pki'];
  clients: ClientRecord[];
  revoked: Array<z.infer<typeof revokedRecord>>;
}

function readKey(file: string): string | null {
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
}

function validate(content: unknown, counts: Readonly<Record<string, number>>): VpnServerBackupState {
  const part = countedContent('vpn-server', contentSchema, content, counts, COUNTED);
  const names = new Set<string>();
  const clients = part.openvpnClients.map((raw) => {
    const parsed = clientRecord.safeParse(raw);
    if (!parsed.success) refuseRow('openvpnClient', rawRowId(raw), ...firstIssue(parsed.error));
    const client = parsed.data;
    if (!isOpenvpnClientName(client.name)) refuseRow('openvpnClient', client.name, 'name', 'not a client name');
    if (names.has(client.name.toLowerCase())) refuseRow('openvpnClient', client.name, 'name', 'duplicate name');
    if (client.revoked === null && client.key === null) refuseRow('openvpnClient', client.name, 'key', 'a valid client without its key');
    names.add(client.name.toLowerCase());
    return client;
  });
  const serials = new Set<string>();
  const revoked = part.openvpnRevoked.map((raw) => {
    const parsed = revokedRecord.safeParse(raw);
    if (!parsed.success) refuseRow('openvpnRevoked', rawRowId(raw), ...firstIssue(parsed.error));
    if (serials.has(parsed.data.serial)) refuseRow('openvpnRevoked', parsed.data.serial, 'serial', 'duplicate serial');
    serials.add(parsed.data.serial);
    return parsed.data;
  });
  return { pki: part.pki, clients, revoked };
}

function capture(ctx: AppContext) {
  const files = pkiFiles(openvpnPkiDir(ctx.settings.stateDir));
  const rows = ctx.db.prepare('SELECT name, remark, serial, certificate, issued, revoked FROM openvpn_clients ORDER BY name').all() as Array<Omit<ClientRecord, 'key'>>;
  return countedCapture(
    {
      pki: {
        caKey: readFileSync(files.caKey, 'utf8'),
        caCert: readFileSync(files.caCert, 'utf8'),
        serverKey: readFileSync(files.serverKey, 'utf8'),
        serverCert: readFileSync(files.serverCert, 'utf8'),
        crl: readFileSync(files.crl, 'utf8'),
      },
      openvpnClients: rows.map((row) => ({ ...row, key: readKey(join(files.clientDir, `${row.name}.key`)) })),
      openvpnRevoked: ctx.db.prepare('SELECT serial, revoked FROM openvpn_revoked ORDER BY serial').all(),
    },
    COUNTED,
  );
}

/** The PKI folder of `state` written beside the live one (0700, keys 0600). */
function stage(dir: string, state: VpnServerBackupState): string {
  const staged = `${dir}.restore`;
  rmSync(staged, { recursive: true, force: true });
  const files = pkiFiles(staged);
  mkdirSync(files.clientDir, { recursive: true, mode: 0o700 });
  chmodSync(staged, 0o700);
  writeFileSync(files.caKey, state.pki.caKey, { mode: 0o600 });
  writeFileSync(files.caCert, state.pki.caCert, { mode: 0o644 });
  writeFileSync(files.serverKey, state.pki.serverKey, { mode: 0o600 });
  writeFileSync(files.serverCert, state.pki.serverCert, { mode: 0o644 });
  writeFileSync(files.crl, state.pki.crl, { mode: 0o644 });
  for (const client of state.clients) if (client.key) writeFileSync(join(files.clientDir, `${client.name}.key`), client.key, { mode: 0o600 });
  return staged;
}

export const vpnServerBackup: BackupPart<VpnServerBackupState> = {
  counts: COUNTED,
  limits: { sealed: 16 * 1024 * 1024, plain: 64 * 1024 * 1024 },
  capture,
  validate: (content, counts) => validate(content, counts),
  write(ctx, state) {
    ctx.db.prepare('DELETE FROM openvpn_clients').run();
    ctx.db.prepare('DELETE FROM openvpn_revoked').run();
    const insert = ctx.db.prepare('INSERT INTO openvpn_clients (name, remark, serial, certificate, issued, revoked) VALUES (?, ?, ?, ?, ?, ?)');
    for (const c of state?.clients ?? []) insert.run(c.name, c.remark, c.serial, c.certificate, c.issued, c.revoked);
    const revoke = ctx.db.prepare('INSERT INTO openvpn_revoked (serial, revoked) VALUES (?, ?)');
    for (const r of state?.revoked ?? []) revoke.run(r.serial, r.revoked);
    const dir = openvpnPkiDir(ctx.settings.stateDir);
    const staged = state ? stage(dir, state) : null;
    const old = `${dir}.old`;
    return {
      install() {
        rmSync(old, { recursive: true, force: true });
        if (existsSync(dir)) renameSync(dir, old);
        if (staged) renameSync(staged, dir);
      },
      undo() {
        if (staged && existsSync(dir)) renameSync(dir, staged);
        if (existsSync(old)) renameSync(old, dir);
        if (staged) rmSync(staged, { recursive: true, force: true });
      },
      done() {
        rmSync(old, { recursive: true, force: true });
      },
    };
  },
};
