import { z } from 'zod';
import { USERNUM_MAX, VOUCHER_BATCH_MAX, voucherBatchInput } from '@portico/schema';
import { backupRowId, backupTimestamp, countedCapture, countedContent, firstIssue, rawRowId, refuseRow, type BackupPart } from '../../config/backup-part.js';
import { stageVoucherKey } from './voucher-codes.js';
import { voucherStore } from './voucher-routes.js';
import type { StoredVoucher, VoucherBatchRecord } from './voucher-store.js';

/**
 * Voucher batches and vouchers (HMACs of their codes) in a backup: the part `voucher`,
 * content `{ voucherKey, voucherBatches, vouchers }`. The HMAC key travels with them: without
 * it no restored code would ever match, and it is sealed like every other secret of the archive.
 */

const COUNTED = ['voucherBatches', 'vouchers'] as const;
const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;
const MAX_BATCHES = 10_000;
const MAX_VOUCHERS = 100_000;
/** A voucher of unlimited devices still lists each; more than this is no real voucher. */
const MAX_MACS = 1000;

const batchRecord = z
  .object({
    id: backupRowId,
    name: z.unknown(),
    codelength: z.unknown(),
    amount: z.unknown(),
    validity: z.unknown(),
    unit: z.unknown(),
    usernum: z.unknown(),
    plan: z.unknown(),
    created_at: backupTimestamp,
  })
  .strict();

const voucherRecord = z
  .object({
    id: backupRowId,
    batch_id: backupRowId,
    serial: z.number().int().min(1).max(VOUCHER_BATCH_MAX),
    code_hash: z.string().regex(/^[0-9a-f]{64}$/),
    first_used: backupTimestamp.nullable(),
    expires_at: backupTimestamp.nullable(),
    macs: z.array(z.string().regex(MAC)).max(MAX_MACS),
  })
  .strict();

const contentSchema = z
  .object({
    voucherKey: z
      .string()
      .regex(/^[A-Za-z0-9+/]+={0,2}$/)
      .refine((s) => Buffer.from(s, 'base64').length === 32),
    voucherBatches: z.array(z.unknown()).max(MAX_BATCHES),
    vouchers: z.array(z.unknown()).max(MAX_VOUCHERS),
  })
  .strict();

/** The voucher tables and key as a restore writes them. */
export interface VoucherBackupState {
  key: Buffer;
  batches: VoucherBatchRecord[];
  vouchers: StoredVoucher[];
}

/**
 * Every batch valid for the schema it is created with, no duplicate id; every voucher in a
 * listed batch, with no duplicate id, code hash or serial within its batch, first use and
 * expiry together, no more devices than its batch allows.
 */
function validateVouchers(content: unknown, counts: Readonly<Record<string, number>>): VoucherBackupState {
  const part = countedContent('voucher', contentSchema, content, counts, COUNTED);
  const batches = new Map<string, VoucherBatchRecord>();
  const voucherBatches = part.voucherBatches.map((raw): VoucherBatchRecord => {
    const parsed = batchRecord.safeParse(raw);
    if (!parsed.success) refuseRow('voucherBatch', rawRowId(raw), ...firstIssue(parsed.error));
    const { id, created_at, ...input } = parsed.data;
    // The fields a batch is created with, checked by the very schema of its creation.
    const fields = voucherBatchInput.safeParse(input);
    if (!fields.success) refuseRow('voucherBatch', id, ...firstIssue(fields.error));
    if (batches.has(id)) refuseRow('voucherBatch', id, 'id', 'duplicate id');
    const batch = { id, created_at, ...fields.data };
    batches.set(id, batch);
    return batch;
  });

  const voucherIds = new Set<string>();
  const hashes = new Set<string>();
  const serials = new Set<string>();
  const vouchers = part.vouchers.map((raw): StoredVoucher => {
    const parsed = voucherRecord.safeParse(raw);
    if (!parsed.success) refuseRow('voucher', rawRowId(raw), ...firstIssue(parsed.error));
    const voucher = parsed.data;
    const batch = batches.get(voucher.batch_id);
    if (!batch) refuseRow('voucher', voucher.id, 'batch_id', 'no such batch');
    if (voucherIds.has(voucher.id)) refuseRow('voucher', voucher.id, 'id', 'duplicate id');
    if (hashes.has(voucher.code_hash)) refuseRow('voucher', voucher.id, 'code_hash', 'duplicate code');
    const serial = `${voucher.batch_id}\0${voucher.serial}`;
    if (voucher.serial > batch.amount || serials.has(serial)) refuseRow('voucher', voucher.id, 'serial', 'duplicate or out of the batch');
    if ((voucher.first_used === null) !== (voucher.expires_at === null)) refuseRow('voucher', voucher.id, 'expires_at', 'first use and expiry go together');
    if (batch.usernum > 0 && voucher.macs.length > Math.min(batch.usernum, USERNUM_MAX)) refuseRow('voucher', voucher.id, 'macs', 'more devices than the voucher allows');
    voucherIds.add(voucher.id);
    hashes.add(voucher.code_hash);
    serials.add(serial);
    return voucher;
  });
  return { key: Buffer.from(part.voucherKey, 'base64'), batches: voucherBatches, vouchers };
}

export const voucherBackup: BackupPart<VoucherBackupState> = {
  counts: COUNTED,
  limits: { sealed: 12 * 1024 * 1024, plain: 32 * 1024 * 1024 },
  capture(ctx) {
    const { key, batches, vouchers } = voucherStore(ctx).exportState();
    return countedCapture({ voucherKey: key.toString('base64'), voucherBatches: batches, vouchers }, COUNTED);
  },
  validate: validateVouchers,
  /**
   * The rows inside the restore's transaction; a key from another device is written beside the
   * current one and renamed into place as the transaction's last step, so any failure leaves
   * the old rows with the old key, and the store hashes with it once the restore committed.
   * A factory reset empties the tables; the key may stay, it hashes nothing any more.
   */
  write(ctx, state) {
    const store = voucherStore(ctx);
    store.replaceAll(state?.batches ?? [], state?.vouchers ?? []);
    if (!state || store.hasKey(state.key)) return undefined;
    const staged = stageVoucherKey(ctx.settings.stateDir, state.key);
    return { install: () => staged.install(), undo: () => staged.undo(), done: () => store.useKey(state.key) };
  },
};
