import { z } from 'zod';
import {
  checkUserWrite,
  hotspotUser,
  USERNUM_MAX,
  VOUCHER_BATCH_MAX,
  voucherBatchInput,
  type HotspotPlan,
  type HotspotRows,
} from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { LOCAL_USER_DATA_FIELDS, localUsers, type LocalUserRecord } from '../hotspot-config/hotspot-config-public.js';
import { voucherStore } from '../voucher/voucher-public.js';
import { costWithin, parseStoredHash, SCRYPT_COST } from '../../plugins/password-hash.js';
import type { StoredVoucher, VoucherBatchRecord } from '../voucher/voucher-public.js';
import { BACKUP_MSG, BackupRefused, type HotspotPart } from './maintain-archive.js';

/**
 * The hotspot's own tables in a backup: local accounts (scrypt hashes), voucher batches and
 * vouchers (HMACs of their codes). The HMAC key travels with them: without it no restored code
 * would ever match, and it is sealed like every other secret of the archive.
 */

const ROW_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;
const MAX_BATCHES = 10_000;
const MAX_VOUCHERS = 100_000;
/** A voucher of unlimited devices still lists each; more than this is no real voucher. */
const MAX_MACS = 1000;

const rowId = z.string().regex(ROW_ID);
const timestamp = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const userData = hotspotUser.schema
  .pick(Object.fromEntries(LOCAL_USER_DATA_FIELDS.map((field) => [field, true])) as { [K in (typeof LOCAL_USER_DATA_FIELDS)[number]]: true })
  .strict();

const userRecord = z
  .object({
    id: rowId,
    username: hotspotUser.schema.shape.username,
    // The stored form plugins/password-hash.ts writes (anything else could never verify), at no
    // higher cost than the daemon's own: one sign-in must not take seconds of CPU.
    password_hash: z.string().refine((hash) => {
      const parsed = parseStoredHash(hash);
      return parsed !== null && costWithin(parsed.cost, SCRYPT_COST);
    }),
    data: userData,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .strict();

const batchRecord = z
  .object({
    id: rowId,
    name: z.unknown(),
    codelength: z.unknown(),
    amount: z.unknown(),
    validity: z.unknown(),
    unit: z.unknown(),
    usernum: z.unknown(),
    plan: z.unknown(),
    created_at: timestamp,
  })
  .strict();

const voucherRecord = z
  .object({
    id: rowId,
    batch_id: rowId,
    serial: z.number().int().min(1).max(VOUCHER_BATCH_MAX),
    code_hash: z.string().regex(/^[0-9a-f]{64}$/),
    first_used: timestamp.nullable(),
    expires_at: timestamp.nullable(),
    macs: z.array(z.string().regex(MAC)).max(MAX_MACS),
  })
  .strict();

const hotspotPartSchema = z
  .object({
    users: z.array(z.unknown()).max(hotspotUser.maxRows ?? MAX_VOUCHERS),
    voucherKey: z
      .string()
      .regex(/^[A-Za-z0-9+/]+={0,2}$/)
      .refine((s) => Buffer.from(s, 'base64').length === 32),
    voucherBatches: z.array(z.unknown()).max(MAX_BATCHES),
    vouchers: z.array(z.unknown()).max(MAX_VOUCHERS),
  })
  .strict();

/** The hotspot tables as a restore writes them. */
export interface HotspotState {
  users: LocalUserRecord[];
  voucherKey: Buffer;
  voucherBatches: VoucherBatchRecord[];
  vouchers: StoredVoucher[];
}

type HotspotContext = Pick<AppContext, 'db' | 'passwords' | 'now' | 'settings'>;

/** Reads the tables for a backup. */
export function captureHotspotPart(ctx: HotspotContext): HotspotPart {
  const users = localUsers(ctx).exportRecords();
  const vouchers = voucherStore(ctx).exportState();
  return {
    counts: { users: users.length, voucherBatches: vouchers.batches.length, vouchers: vouchers.vouchers.length },
    content: { users, voucherKey: vouchers.key.toString('base64'), voucherBatches: vouchers.batches, vouchers: vouchers.vouchers },
  };
}

function refuse(entity: string, id: string, field: string, reason: string): never {
  throw new BackupRefused(BACKUP_MSG.rejected, `${entity} ${JSON.stringify(id)} ${field}: ${reason}`, { entity, id, field, reason });
}

function firstIssue(error: z.ZodError): [string, string] {
  const issue = error.issues[0];
  return [issue?.path.length ? String(issue.path[issue.path.length - 1]) : '_', issue?.message ?? 'invalid'];
}

function idOf(row: unknown): string {
  const id = (row as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id.slice(0, 128) : '';
}

/** SQLite's NOCASE, which the username column uses: ASCII letters only. */
function asciiFold(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * Checks the hotspot part as the write paths would, before anything is written: every row
 * valid for its schema, sizes within bounds, no duplicate id, user name (case-insensitive as
 * the table's), code hash or serial within a batch, every voucher in a listed batch, every
 * account's plan in the restored configuration, and counts matching the signed manifest.
 */
export function validateHotspotPart(content: unknown, counts: HotspotPart['counts'], snapshot: ConfigSnapshot): HotspotState {
  const part = hotspotPartSchema.safeParse(content);
  if (!part.success) {
    const [field, reason] = firstIssue(part.error);
    refuse('hotspot', '', field, reason);
  }
  const { users: rawUsers, voucherBatches: rawBatches, vouchers: rawVouchers } = part.data;
  if (rawUsers.length !== counts.users || rawBatches.length !== counts.voucherBatches || rawVouchers.length !== counts.vouchers) {
    throw new BackupRefused(BACKUP_MSG.invalid, 'the manifest does not count the rows of hotspot.enc');
  }

  const plans = (snapshot.hotspotPlan ?? []).map((row) => ({ ...row.data, id: row.id }) as unknown as HotspotPlan);
  const ruleRows: HotspotRows & { hotspotUser: Array<{ id: string; username: string; model: string }> } = { hotspotPlan: plans, hotspotUser: [] };
  const userIds = new Set<string>();
  const userNames = new Set<string>();
  const users = rawUsers.map((raw): LocalUserRecord => {
    const parsed = userRecord.safeParse(raw);
    if (!parsed.success) refuse(hotspotUser.name, idOf(raw), ...firstIssue(parsed.error));
    const user = parsed.data;
    if (userIds.has(user.id)) refuse(hotspotUser.name, user.id, 'id', 'duplicate id');
    if (userNames.has(asciiFold(user.username))) refuse(hotspotUser.name, user.id, 'username', 'duplicate name');
    const data = user.data as Record<string, unknown>;
    if (data.sms === true && data.tel === '') refuse(hotspotUser.name, user.id, 'tel', 'validation.required');
    const candidate = { id: user.id, username: user.username, model: String(data.model) };
    const verdict = checkUserWrite(candidate, ruleRows);
    if (verdict !== undefined) {
      const [field, reason] = typeof verdict === 'string' ? ['_', verdict] : (Object.entries(verdict)[0] ?? ['_', 'invalid']);
      refuse(hotspotUser.name, user.id, field, reason);
    }
    userIds.add(user.id);
    userNames.add(asciiFold(user.username));
    ruleRows.hotspotUser.push(candidate);
    return { ...user, data };
  });

  const batches = new Map<string, VoucherBatchRecord>();
  const voucherBatches = rawBatches.map((raw): VoucherBatchRecord => {
    const parsed = batchRecord.safeParse(raw);
    if (!parsed.success) refuse('voucherBatch', idOf(raw), ...firstIssue(parsed.error));
    const { id, created_at, ...input } = parsed.data;
    // The fields a batch is created with, checked by the very schema of its creation.
    const fields = voucherBatchInput.safeParse(input);
    if (!fields.success) refuse('voucherBatch', id, ...firstIssue(fields.error));
    if (batches.has(id)) refuse('voucherBatch', id, 'id', 'duplicate id');
    const batch = { id, created_at, ...fields.data };
    batches.set(id, batch);
    return batch;
  });

  const voucherIds = new Set<string>();
  const hashes = new Set<string>();
  const serials = new Set<string>();
  const vouchers = rawVouchers.map((raw): StoredVoucher => {
    const parsed = voucherRecord.safeParse(raw);
    if (!parsed.success) refuse('voucher', idOf(raw), ...firstIssue(parsed.error));
    const voucher = parsed.data;
    const batch = batches.get(voucher.batch_id);
    if (!batch) refuse('voucher', voucher.id, 'batch_id', 'no such batch');
    if (voucherIds.has(voucher.id)) refuse('voucher', voucher.id, 'id', 'duplicate id');
    if (hashes.has(voucher.code_hash)) refuse('voucher', voucher.id, 'code_hash', 'duplicate code');
    const serial = `${voucher.batch_id}\0${voucher.serial}`;
    if (voucher.serial > batch.amount || serials.has(serial)) refuse('voucher', voucher.id, 'serial', 'duplicate or out of the batch');
    if ((voucher.first_used === null) !== (voucher.expires_at === null)) refuse('voucher', voucher.id, 'expires_at', 'first use and expiry go together');
    if (batch.usernum > 0 && voucher.macs.length > Math.min(batch.usernum, USERNUM_MAX)) refuse('voucher', voucher.id, 'macs', 'more devices than the voucher allows');
    voucherIds.add(voucher.id);
    hashes.add(voucher.code_hash);
    serials.add(serial);
    return voucher;
  });

  return { users, voucherKey: Buffer.from(part.data.voucherKey, 'base64'), voucherBatches, vouchers };
}

/**
 * Writes the tables inside the caller's transaction. The vouchers' key is installed by the
 * caller around the commit (stageVoucherKey), then handed to the store with useKey.
 */
export function writeHotspotState(ctx: HotspotContext, state: Pick<HotspotState, 'users' | 'voucherBatches' | 'vouchers'>): void {
  localUsers(ctx).replaceAll(state.users);
  voucherStore(ctx).replaceAll(state.voucherBatches, state.vouchers);
}

/** A factory reset empties the tables; the voucher key may stay, it hashes nothing any more. */
export function clearHotspotState(ctx: HotspotContext): void {
  writeHotspotState(ctx, { users: [], voucherBatches: [], vouchers: [] });
}
