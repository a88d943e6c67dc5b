import { createHmac, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { VOUCHER_ALPHABET } from '@portico/schema';

/**
 * Voucher codes: drawn from the CSPRNG (crypto.randomBytes) over a 32-symbol alphabet, 5
 * bits per symbol, so every symbol is uniform. Only HMAC-SHA256(code) under a device key is
 * stored: a copy of the database alone gives no usable code.
 */

const BITS_PER_SYMBOL = 5;

export function generateVoucherCode(length: number): string {
  if (VOUCHER_ALPHABET.length !== 1 << BITS_PER_SYMBOL) throw new Error('the voucher alphabet must have 32 symbols');
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += VOUCHER_ALPHABET[bytes[i]! & 0x1f];
  return out;
}

/** The stored form of a code. */
export function voucherCodeHash(key: Buffer, code: string): string {
  return createHmac('sha256', key).update(code, 'utf8').digest('hex');
}

/** The voucher key's file in the state folder. */
export const VOUCHER_KEY_FILE = 'voucher.key';
const KEY_BYTES = 32;

/**
 * The device key vouchers are hashed under, kept beside the database (owner-only) and made
 * on first use. Written to a temporary file and renamed, so a crash never leaves half a key.
 */
export function loadVoucherKey(stateDir: string): Buffer {
  const file = join(stateDir, VOUCHER_KEY_FILE);
  if (existsSync(file)) {
    const key = readFileSync(file);
    if (key.length !== KEY_BYTES) throw new Error(`${file} is damaged: expected ${KEY_BYTES} bytes`);
    return key;
  }
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, key, { mode: 0o600, flag: 'wx' });
  renameSync(temp, file);
  return key;
}

/** A voucher key written beside the current one, not yet in use. */
export interface StagedVoucherKey {
  /** Renames the staged key over the current one: atomic, so the file is one key or the other. */
  install(): void;
  /** Puts things back: drops the staged file, or once installed, the previous key (or none). */
  undo(): void;
}

function writeDurably(file: string, bytes: Buffer): void {
  rmSync(file, { force: true });
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, bytes);
    // The database commits with a full sync; the key its vouchers need must be as durable.
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `key` (restored vouchers' key) beside the current one, so a restore can put it in
 * place as the very last step of its transaction and undo that if the commit still fails.
 */
export function stageVoucherKey(stateDir: string, key: Buffer): StagedVoucherKey {
  if (key.length !== KEY_BYTES) throw new Error(`a voucher key has ${KEY_BYTES} bytes`);
  const file = join(stateDir, VOUCHER_KEY_FILE);
  const previous = existsSync(file) ? readFileSync(file) : undefined;
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.restore.tmp`;
  writeDurably(temp, key);
  let installed = false;
  return {
    install() {
      renameSync(temp, file);
      installed = true;
    },
    undo() {
      if (!installed) {
        rmSync(temp, { force: true });
        return;
      }
      if (!previous) {
        rmSync(file, { force: true });
        return;
      }
      writeDurably(temp, previous);
      renameSync(temp, file);
    },
  };
}
