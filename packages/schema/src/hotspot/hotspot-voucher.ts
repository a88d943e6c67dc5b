import { z } from 'zod';
import { plainTextField } from '../common/text-fields.js';
import { integerInRange } from '../common/field-base.js';
import { limitField, SECONDS_PER_UNIT, timeUnitField, type TimeUnit } from '../common/quantity-fields.js';
import { planRefField } from './hotspot-fields.js';
import { USERNUM_MAX } from './hotspot-user.js';

/**
 * Vouchers (spec §3 Voucher; /hotspot/voucher and /hotspot/voucherbatch). Codes are drawn by
 * the daemon from a CSPRNG over an alphabet without look-alike characters (no 0/O, 1/I),
 * 32 symbols so every symbol carries exactly 5 bits and no modulo bias arises.
 */
export const VOUCHER_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
export const VOUCHER_CODE_MIN = 6;
export const VOUCHER_CODE_MAX = 16;
export const VOUCHER_BATCH_MAX = 1000;
/** A voucher is valid for at most a year once first used. */
export const VOUCHER_VALIDITY_MAX_SECONDS = 366 * 86400;

/** States of a voucher in the list: never used, used and still valid, past its validity. */
export const VOUCHER_STATUSES = ['unused', 'inuse', 'expired'] as const;
export type VoucherStatus = (typeof VOUCHER_STATUSES)[number];

/** The request that creates a batch of vouchers. */
export const voucherBatchInput = z
  .object({
    name: plainTextField(32).default(''),
    codelength: integerInRange(VOUCHER_CODE_MIN, VOUCHER_CODE_MAX, 'validation.hotspot.codeLength').default(8),
    amount: integerInRange(1, VOUCHER_BATCH_MAX, 'validation.hotspot.amount'),
    validity: integerInRange(1, Number.MAX_SAFE_INTEGER, 'validation.duration.value'),
    unit: timeUnitField().default('hours'),
    /** Devices that may use one voucher at the same time; 0 = unlimited. */
    usernum: limitField(USERNUM_MAX).default(1),
    plan: planRefField().default(''),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.validity * SECONDS_PER_UNIT[value.unit] > VOUCHER_VALIDITY_MAX_SECONDS) {
      ctx.addIssue({ code: 'custom', path: ['validity'], message: 'validation.duration.max' });
    }
  });
export type VoucherBatchInput = z.infer<typeof voucherBatchInput>;

/** A batch as listed. */
export interface VoucherBatch {
  id: string;
  name: string;
  codelength: number;
  amount: number;
  validity: number;
  unit: TimeUnit;
  usernum: number;
  plan: string;
  created_at: number;
  unused: number;
  inuse: number;
  expired: number;
}

/** A voucher as listed: never its code, only a short hint of it. */
export interface VoucherRow {
  id: string;
  batch: string;
  batch_name: string;
  /** Number of the voucher in its batch, printed on its card: matches a card to a row. */
  serial: number;
  status: VoucherStatus;
  usernum: number;
  plan: string;
  first_used: number | null;
  expires_at: number | null;
  macs: string[];
}

/** Reply of a batch creation: the codes, shown this once (and on the printable sheet). */
export interface VoucherBatchCreated {
  batch: VoucherBatch;
  codes: string[];
}

/** The form a typed code is compared in: upper case, spaces and hyphens removed. */
export function normalizeVoucherCode(text: string): string {
  return text.replace(/[\s-]/g, '').toUpperCase();
}

/** Whether a typed code could be a voucher at all (length and alphabet), before any lookup. */
export function isVoucherCodeShape(code: string): boolean {
  if (code.length < VOUCHER_CODE_MIN || code.length > VOUCHER_CODE_MAX) return false;
  for (const ch of code) if (!VOUCHER_ALPHABET.includes(ch)) return false;
  return true;
}

/** Groups a code in fours for printing: `ABCD-EFGH`. */
export function formatVoucherCode(code: string): string {
  return code.replace(/(.{4})(?=.)/g, '$1-');
}
