import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/**
 * A licence file: an Ed25519-signed statement that one device (its serial number) may run the
 * product, verifiable offline with the vendor's public key the device holds.
 *
 *   { "payload": base64(JSON of the licence), "signature": base64(Ed25519 over those bytes) }
 *
 * The signature covers the exact payload bytes, so no canonical JSON is needed.
 */
export const LICENSE_FILE_LIMIT = 16 * 1024;

const serial = z.string().regex(/^[A-Za-z0-9-]{1,64}$/);

export const licenseSchema = z
  .object({
    format: z.literal(1),
    id: z.string().regex(/^[A-Za-z0-9-]{1,64}$/),
    device: serial,
    edition: z.string().regex(/^[A-Za-z0-9 ._-]{1,32}$/),
    /** Epoch milliseconds. */
    issued: z.number().int().nonnegative(),
    /** Epoch milliseconds; null: never. */
    expires: z.number().int().nonnegative().nullable(),
  })
  .strict();
export type License = z.infer<typeof licenseSchema>;

const fileSchema = z.object({ payload: z.string().max(LICENSE_FILE_LIMIT), signature: z.string().max(256) }).strict();

export type LicenseRefusal = 'format' | 'signature' | 'otherDevice' | 'expired';

export class LicenseRefused extends Error {
  constructor(readonly reason: LicenseRefusal) {
    super(`licence refused: ${reason}`);
  }
}

export function licensePublicKey(pem: string | Buffer): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the licence key is not an Ed25519 public key');
  return key;
}

/** The vendor's side (the licence server; tests sign with their own key). */
export function signLicense(license: License, privateKey: KeyObject): string {
  const payload = Buffer.from(JSON.stringify(licenseSchema.parse(license)), 'utf8');
  return JSON.stringify({ payload: payload.toString('base64'), signature: sign(null, payload, privateKey).toString('base64') });
}

/**
 * Verifies a licence file for `device` at `now`. A genuine licence of another device is told
 * apart (`otherDevice`): a licence copied from one device to another is what the lock is for.
 */
export function verifyLicense(text: string, key: KeyObject, device: string, now: number): License {
  if (text.length > LICENSE_FILE_LIMIT) throw new LicenseRefused('format');
  let file: z.infer<typeof fileSchema>;
  try {
    file = fileSchema.parse(JSON.parse(text));
  } catch {
    throw new LicenseRefused('format');
  }
  const payload = Buffer.from(file.payload, 'base64');
  const signature = Buffer.from(file.signature, 'base64');
  if (signature.length !== 64 || !verify(null, payload, key, signature)) throw new LicenseRefused('signature');
  let license: License;
  try {
    license = licenseSchema.parse(JSON.parse(payload.toString('utf8')));
  } catch {
    throw new LicenseRefused('format');
  }
  if (license.device !== device) throw new LicenseRefused('otherDevice');
  if (license.expires !== null && license.expires <= now) throw new LicenseRefused('expired');
  return license;
}
