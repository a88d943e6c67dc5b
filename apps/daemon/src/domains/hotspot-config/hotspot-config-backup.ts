import { z } from 'zod';
import { checkUserWrite, hotspotUser, type HotspotPlan, type HotspotRows } from '@portico/schema';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { backupRowId, backupTimestamp, countedCapture, countedContent, firstIssue, rawRowId, refuseRow, type BackupPart } from '../../config/backup-part.js';
import { costWithin, parseStoredHash, SCRYPT_COST } from '../../plugins/password-hash.js';
import { SEALED_PASSWORD } from './account-secret-seal.js';
import { LOCAL_USER_DATA_FIELDS, localUsers, type LocalUserRecord } from './local-user-store.js';

/**
 * The hotspot's local accounts in a backup, with their scrypt hashes and sealed passwords (never
 * a password): the part `hotspot-config`, content `{ users }`, counted as `users`.
 */

const COUNTED = ['users'] as const;
/** The table has no row limit of its own; no real device holds more accounts than this. */
const MAX_USERS = 100_000;

const userData = hotspotUser.schema
  .pick(Object.fromEntries(LOCAL_USER_DATA_FIELDS.map((field) => [field, true])) as { [K in (typeof LOCAL_USER_DATA_FIELDS)[number]]: true })
  .strict();

const userRecord = z
  .object({
    id: backupRowId,
    username: hotspotUser.schema.shape.username,
    // The stored form plugins/password-hash.ts writes (anything else could never verify), at no
    // higher cost than the daemon's own: one sign-in must not take seconds of CPU.
    password_hash: z.string().refine((hash) => {
      const parsed = parseStoredHash(hash);
      return parsed !== null && costWithin(parsed.cost, SCRYPT_COST);
    }),
    data: userData,
    // The password as sealed on the device that made the backup (never plaintext); backups
    // made before every account had one name it `ppp_secret`.
    sealed_password: z.string().regex(SEALED_PASSWORD).nullable().optional(),
    ppp_secret: z.string().regex(SEALED_PASSWORD).nullable().optional(),
    created_at: backupTimestamp,
    updated_at: backupTimestamp,
  })
  .strict();

const contentSchema = z.object({ users: z.array(z.unknown()).max(hotspotUser.maxRows ?? MAX_USERS) }).strict();

/** SQLite's NOCASE, which the username column uses: ASCII letters only. */
function asciiFold(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * Every account valid for its schema, no duplicate id or name (case-insensitive as the
 * table's), each one's plan in the restored configuration, as the account routes check.
 */
function validateUsers(content: unknown, counts: Readonly<Record<string, number>>, snapshot: ConfigSnapshot): LocalUserRecord[] {
  const { users: rawUsers } = countedContent('hotspot-config', contentSchema, content, counts, COUNTED);
  const plans = (snapshot.hotspotPlan ?? []).map((row) => ({ ...row.data, id: row.id }) as unknown as HotspotPlan);
  const ruleRows: HotspotRows & { hotspotUser: Array<{ id: string; username: string; model: string }> } = { hotspotPlan: plans, hotspotUser: [] };
  const userIds = new Set<string>();
  const userNames = new Set<string>();
  return rawUsers.map((raw): LocalUserRecord => {
    const parsed = userRecord.safeParse(raw);
    if (!parsed.success) refuseRow(hotspotUser.name, rawRowId(raw), ...firstIssue(parsed.error));
    const { ppp_secret: former, ...user } = parsed.data;
    if (userIds.has(user.id)) refuseRow(hotspotUser.name, user.id, 'id', 'duplicate id');
    if (userNames.has(asciiFold(user.username))) refuseRow(hotspotUser.name, user.id, 'username', 'duplicate name');
    const data = user.data as Record<string, unknown>;
    if (data.sms === true && data.tel === '') refuseRow(hotspotUser.name, user.id, 'tel', 'validation.required');
    const candidate = { id: user.id, username: user.username, model: String(data.model) };
    const verdict = checkUserWrite(candidate, ruleRows);
    if (verdict !== undefined) {
      const [field, reason] = typeof verdict === 'string' ? ['_', verdict] : (Object.entries(verdict)[0] ?? ['_', 'invalid']);
      refuseRow(hotspotUser.name, user.id, field, reason);
    }
    userIds.add(user.id);
    userNames.add(asciiFold(user.username));
    ruleRows.hotspotUser.push(candidate);
    return { ...user, data, sealed_password: user.sealed_password ?? former ?? null };
  });
}

export const hotspotConfigBackup: BackupPart<LocalUserRecord[]> = {
  counts: COUNTED,
  // Hashes are random bytes: a full table barely compresses.
  limits: { sealed: 12 * 1024 * 1024, plain: 32 * 1024 * 1024 },
  capture: (ctx) => countedCapture({ users: localUsers(ctx).exportRecords() }, COUNTED),
  validate: validateUsers,
  write(ctx, users) {
    localUsers(ctx).replaceAll(users ?? []);
    return undefined;
  },
};
