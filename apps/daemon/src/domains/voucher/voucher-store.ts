import { randomUUID, timingSafeEqual } from 'node:crypto';
import {
  isVoucherCodeShape,
  normalizeVoucherCode,
  SECONDS_PER_UNIT,
  type TimeUnit,
  type VoucherBatch,
  type VoucherBatchInput,
  type VoucherRow,
  type VoucherStatus,
} from '@portico/schema';
import type { Db } from '../../plugins/db-open.js';
import { generateVoucherCode, voucherCodeHash } from './voucher-codes.js';

/** A voucher as the portal engine sees it. */
export interface VoucherRecord {
  id: string;
  batchId: string;
  serial: number;
  plan: string;
  /** Devices that may use it; 0 = unlimited. */
  usernum: number;
  validitySeconds: number;
  firstUsed: number | null;
  expiresAt: number | null;
  macs: string[];
  status: VoucherStatus;
}

export type RedeemResult =
  | { ok: true; voucher: VoucherRecord; secondsRemaining: number }
  /** `code`: no such voucher; `expired`: its validity is over; `onlineLimit`: all its device slots are taken. */
  | { ok: false; reason: 'code' | 'expired' | 'onlineLimit' };

/** A batch as stored, the form a configuration backup carries: the listed batch without its counts. */
export type VoucherBatchRecord = Omit<VoucherBatch, 'unused' | 'inuse' | 'expired'>;

/** A voucher as stored: its code only as the HMAC under the device's voucher key. */
export interface StoredVoucher {
  id: string;
  batch_id: string;
  serial: number;
  code_hash: string;
  first_used: number | null;
  expires_at: number | null;
  macs: string[];
}

/** Everything that makes the vouchers work on another device: the rows and the key of their hashes. */
export interface VoucherState {
  key: Buffer;
  batches: VoucherBatchRecord[];
  vouchers: StoredVoucher[];
}

interface BatchRow {
  id: string;
  name: string;
  codelength: number;
  amount: number;
  validity: number;
  unit: string;
  usernum: number;
  plan: string;
  created_at: number;
}

interface VoucherDbRow {
  id: string;
  batch_id: string;
  serial: number;
  first_used: number | null;
  expires_at: number | null;
  macs: string;
}

function statusAt(row: Pick<VoucherDbRow, 'first_used' | 'expires_at'>, now: number): VoucherStatus {
  if (row.first_used === null) return 'unused';
  return row.expires_at !== null && row.expires_at <= now ? 'expired' : 'inuse';
}

function validitySeconds(batch: Pick<BatchRow, 'validity' | 'unit'>): number {
  return batch.validity * SECONDS_PER_UNIT[batch.unit as TimeUnit];
}

/** Tries before giving up on a unique code: a clash at 6 symbols is already rare. */
const CODE_ATTEMPTS = 20;

/**
 * Vouchers and their batches in SQLite (migration "hotspot local users and vouchers").
 * Synchronous (better-sqlite3), so the portal engine can redeem inside its own request without
 * interleaving: a redemption is one transaction.
 */
export class VoucherStore {
  constructor(
    private readonly db: Db,
    private key: Buffer,
    private readonly now: () => number,
  ) {}

  /** The batches, vouchers and hashing key, as a configuration backup seals them. */
  exportState(): VoucherState {
    const batches = (this.db.prepare('SELECT * FROM voucher_batches ORDER BY rowid').all() as BatchRow[]).map((row) => ({
      ...row,
      unit: row.unit as TimeUnit,
    }));
    const vouchers = (
      this.db.prepare('SELECT id, batch_id, serial, code_hash, first_used, expires_at, macs FROM vouchers ORDER BY rowid').all() as Array<
        VoucherDbRow & { code_hash: string }
      >
    ).map((row) => ({ ...row, macs: JSON.parse(row.macs) as string[] }));
    return { key: Buffer.from(this.key), batches, vouchers };
  }

  /**
   * Makes `batches` and `vouchers` (already validated) the whole of both tables. One
   * transaction, nested in the caller's when there is one, so a restore writes them with the
   * configuration or not at all. Their hashes are under the key of the device that made them:
   * the caller installs that key (useKey) once the transaction has committed.
   */
  replaceAll(batches: readonly VoucherBatchRecord[], vouchers: readonly StoredVoucher[]): void {
    const insertBatch = this.db.prepare(
      'INSERT INTO voucher_batches (id, name, codelength, amount, validity, unit, usernum, plan, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const insertVoucher = this.db.prepare(
      'INSERT INTO vouchers (id, batch_id, serial, code_hash, first_used, expires_at, macs) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM vouchers').run();
      this.db.prepare('DELETE FROM voucher_batches').run();
      for (const b of batches) insertBatch.run(b.id, b.name, b.codelength, b.amount, b.validity, b.unit, b.usernum, b.plan, b.created_at);
      for (const v of vouchers) insertVoucher.run(v.id, v.batch_id, v.serial, v.code_hash, v.first_used, v.expires_at, JSON.stringify(v.macs));
    })();
  }

  /** Whether codes are hashed under `key` now. */
  hasKey(key: Buffer): boolean {
    return key.length === this.key.length && timingSafeEqual(key, this.key);
  }

  /** Hashes codes under `key` from now on: the key of restored vouchers, once it is on disk. */
  useKey(key: Buffer): void {
    this.key = Buffer.from(key);
  }

  /** Creates a batch; the codes are returned this once and never stored in plain. */
  createBatch(input: VoucherBatchInput): { batch: VoucherBatch; codes: string[] } {
    const id = randomUUID();
    const created = this.now();
    const codes: string[] = [];
    const insertVoucher = this.db.prepare('INSERT OR IGNORE INTO vouchers (id, batch_id, serial, code_hash) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO voucher_batches (id, name, codelength, amount, validity, unit, usernum, plan, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(id, input.name, input.codelength, input.amount, input.validity, input.unit, input.usernum, input.plan, created);
      for (let serial = 1; serial <= input.amount; serial++) {
        let stored = false;
        for (let attempt = 0; attempt < CODE_ATTEMPTS && !stored; attempt++) {
          const code = generateVoucherCode(input.codelength);
          // The unique index on the hash refuses a code that exists in any batch.
          if (insertVoucher.run(randomUUID(), id, serial, voucherCodeHash(this.key, code)).changes === 1) {
            codes.push(code);
            stored = true;
          }
        }
        if (!stored) throw new Error('could not draw a unique voucher code; use longer codes');
      }
    })();
    return { batch: this.batch(id)!, codes };
  }

  batch(id: string): VoucherBatch | undefined {
    return this.batches().find((b) => b.id === id);
  }

  batches(): VoucherBatch[] {
    const now = this.now();
    const rows = this.db.prepare('SELECT * FROM voucher_batches ORDER BY created_at DESC, rowid DESC').all() as BatchRow[];
    const counts = this.db
      .prepare(
        `SELECT batch_id,
           SUM(CASE WHEN first_used IS NULL THEN 1 ELSE 0 END) AS unused,
           SUM(CASE WHEN first_used IS NOT NULL AND (expires_at IS NULL OR expires_at > ?) THEN 1 ELSE 0 END) AS inuse,
           SUM(CASE WHEN first_used IS NOT NULL AND expires_at <= ? THEN 1 ELSE 0 END) AS expired
         FROM vouchers GROUP BY batch_id`,
      )
      .all(now, now) as Array<{ batch_id: string; unused: number; inuse: number; expired: number }>;
    const byBatch = new Map(counts.map((c) => [c.batch_id, c]));
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      codelength: row.codelength,
      amount: row.amount,
      validity: row.validity,
      unit: row.unit as TimeUnit,
      usernum: row.usernum,
      plan: row.plan,
      created_at: row.created_at,
      unused: byBatch.get(row.id)?.unused ?? 0,
      inuse: byBatch.get(row.id)?.inuse ?? 0,
      expired: byBatch.get(row.id)?.expired ?? 0,
    }));
  }

  /** Every voucher as listed, newest batch first, by serial. */
  list(): VoucherRow[] {
    const now = this.now();
    const rows = this.db
      .prepare(
        `SELECT v.id, v.batch_id, v.serial, v.first_used, v.expires_at, v.macs, b.name, b.usernum, b.plan
         FROM vouchers v JOIN voucher_batches b ON b.id = v.batch_id
         ORDER BY b.created_at DESC, b.rowid DESC, v.serial`,
      )
      .all() as Array<VoucherDbRow & { name: string; usernum: number; plan: string }>;
    return rows.map((row) => ({
      id: row.id,
      batch: row.batch_id,
      batch_name: row.name,
      serial: row.serial,
      status: statusAt(row, now),
      usernum: row.usernum,
      plan: row.plan,
      first_used: row.first_used,
      expires_at: row.expires_at,
      macs: JSON.parse(row.macs) as string[],
    }));
  }

  /** Deletes vouchers by id; a batch left empty goes with them. */
  remove(ids: readonly string[]): number {
    const del = this.db.prepare('DELETE FROM vouchers WHERE id = ?');
    return this.db.transaction(() => {
      const n = ids.reduce((sum, id) => sum + del.run(id).changes, 0);
      this.db.prepare('DELETE FROM voucher_batches WHERE id NOT IN (SELECT DISTINCT batch_id FROM vouchers)').run();
      return n;
    })();
  }

  /** Deletes batches with all their vouchers. */
  removeBatches(ids: readonly string[]): number {
    const del = this.db.prepare('DELETE FROM voucher_batches WHERE id = ?');
    return this.db.transaction(() => ids.reduce((sum, id) => sum + del.run(id).changes, 0))();
  }

  /** Plans named by batches that still hold vouchers usable now or later. */
  plansInUse(): string[] {
    const now = this.now();
    const rows = this.db
      .prepare(
        `SELECT DISTINCT b.plan FROM voucher_batches b JOIN vouchers v ON v.batch_id = b.id
         WHERE b.plan != '' AND (v.expires_at IS NULL OR v.expires_at > ?)`,
      )
      .all(now) as Array<{ plan: string }>;
    return rows.map((r) => r.plan);
  }

  /**
   * The voucher a typed code names, or undefined. The code is normalised (case, spaces,
   * hyphens) and hashed; nothing else about it is compared, so lookups take the same path
   * whether or not the code exists.
   */
  voucherByCode(code: string): VoucherRecord | undefined {
    const normal = normalizeVoucherCode(code);
    if (!isVoucherCodeShape(normal)) return undefined;
    const row = this.db
      .prepare(
        `SELECT v.id, v.batch_id, v.serial, v.first_used, v.expires_at, v.macs, b.plan, b.usernum, b.validity, b.unit
         FROM vouchers v JOIN voucher_batches b ON b.id = v.batch_id WHERE v.code_hash = ?`,
      )
      .get(voucherCodeHash(this.key, normal)) as (VoucherDbRow & Pick<BatchRow, 'plan' | 'usernum' | 'validity' | 'unit'>) | undefined;
    if (!row) return undefined;
    return {
      id: row.id,
      batchId: row.batch_id,
      serial: row.serial,
      plan: row.plan,
      usernum: row.usernum,
      validitySeconds: validitySeconds(row),
      firstUsed: row.first_used,
      expiresAt: row.expires_at,
      macs: JSON.parse(row.macs) as string[],
      status: statusAt(row, this.now()),
    };
  }

  /**
   * Signs a device in with a voucher at `now` (ms). The first use starts the validity; a
   * device already bound to the voucher signs in again; a new device takes one of the
   * `usernum` slots (0 = unlimited). One transaction: two devices racing for the last slot
   * cannot both get it.
   */
  redeemVoucher(code: string, clientMac: string, now: number): RedeemResult {
    const mac = clientMac.toLowerCase();
    return this.db.transaction((): RedeemResult => {
      const voucher = this.voucherByCode(code);
      if (!voucher) return { ok: false, reason: 'code' };
      if (voucher.expiresAt !== null && voucher.expiresAt <= now) return { ok: false, reason: 'expired' };
      const macs = voucher.macs.includes(mac) ? voucher.macs : [...voucher.macs, mac];
      if (voucher.usernum > 0 && macs.length > voucher.usernum) return { ok: false, reason: 'onlineLimit' };
      const firstUsed = voucher.firstUsed ?? now;
      const expiresAt = voucher.expiresAt ?? now + voucher.validitySeconds * 1000;
      this.db.prepare('UPDATE vouchers SET first_used = ?, expires_at = ?, macs = ? WHERE id = ?').run(firstUsed, expiresAt, JSON.stringify(macs), voucher.id);
      return {
        ok: true,
        voucher: { ...voucher, firstUsed, expiresAt, macs, status: 'inuse' },
        secondsRemaining: Math.max(0, Math.floor((expiresAt - now) / 1000)),
      };
    }).immediate();
  }
}
