import { createHmac, hkdfSync, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The device's own backup secret: 32 random bytes, hex, readable by the daemon only. */
export const DEVICE_KEY_FILE = 'backup-key';

/** Work factor of a passphrase: about 100 ms and 32 MiB, too slow to guess many per second. */
export const PASSPHRASE_KDF = { name: 'scrypt', N: 32768, r: 8, p: 1 } as const;
export type PassphraseKdf = typeof PASSPHRASE_KDF;

const SCRYPT_MAXMEM = 64 * 1024 * 1024;
const HKDF_INFO = 'portico configuration backup v1';

/** The two keys of one archive: secrets are encrypted with one, the archive signed with the other. */
export interface ArchiveKeys {
  encryption: Buffer;
  authentication: Buffer;
}

/** Reads the device secret, creating it (0600) on first use. */
export function deviceSecret(stateDir: string): Buffer {
  const file = join(stateDir, DEVICE_KEY_FILE);
  try {
    return parseSecret(readFileSync(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32);
  try {
    // `wx`: two first uses at once must not overwrite each other's secret.
    writeFileSync(file, `${secret.toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return parseSecret(readFileSync(file, 'utf8'), file);
    throw error;
  }
  // The umask may have widened nothing, but a copied state folder may: keep it owner-only.
  chmodSync(file, 0o600);
  return secret;
}

function parseSecret(text: string, file: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} does not hold a 32-byte hex secret`);
  return Buffer.from(hex, 'hex');
}

function split(material: Buffer, salt: Buffer): ArchiveKeys {
  const okm = Buffer.from(hkdfSync('sha256', material, salt, HKDF_INFO, 64));
  return { encryption: okm.subarray(0, 32), authentication: okm.subarray(32) };
}

/** Keys under the device secret: only this device (or one given its secret) reads the archive. */
export function deviceKeys(secret: Buffer, salt: Buffer): ArchiveKeys {
  return split(secret, salt);
}

/** Keys under an administrator's passphrase: any device given the passphrase reads the archive. */
export async function passphraseKeys(passphrase: string, salt: Buffer, kdf: PassphraseKdf = PASSPHRASE_KDF): Promise<ArchiveKeys> {
  const stretched = await new Promise<Buffer>((resolve, reject) => {
    scrypt(passphrase.normalize('NFC'), salt, 32, { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: SCRYPT_MAXMEM }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
  return split(stretched, salt);
}

/**
 * HMAC-SHA256 over the archive's parts, each prefixed with its name and length so no byte can
 * move from one part to another without changing the tag.
 */
export function archiveTag(key: Buffer, parts: ReadonlyArray<readonly [string, Buffer]>): Buffer {
  const mac = createHmac('sha256', key);
  for (const [name, bytes] of parts) {
    const head = Buffer.alloc(8);
    head.writeBigUInt64BE(BigInt(bytes.length));
    mac.update(`${name}\0`).update(head).update(bytes);
  }
  return mac.digest();
}

export function sameTag(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
