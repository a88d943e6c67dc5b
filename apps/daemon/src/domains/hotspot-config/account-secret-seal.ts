import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The passwords of local accounts, sealed. CHAP (pppd's CHAP and MS-CHAPv2, the CMCC and RU
 * portals' CHAP sign-in) needs the password itself on the device, which a scrypt hash cannot
 * give back, so besides its hash every account keeps its password sealed with AES-256-GCM under
 * a device key: 32 random bytes in a 0600 file of the state directory, made on first use. The
 * account name is the associated data, so a sealed password copied onto another account does
 * not open. A backup carries the sealed form only; on another device (another key) it does not
 * open and the account must have its password set again.
 */
const VERSION = 'v1';
/**
 * The associated data's prefix. It says `ppp` because PPP accounts were sealed first; changing
 * it would make every password sealed so far unreadable.
 */
const AAD_PREFIX = 'ppp:';

/** The device key's file in the state directory. */
export const ACCOUNT_SECRET_KEY_FILE = 'account-secret.key';
/** Its name before portal accounts were sealed too: adopted on first use. */
const FORMER_KEY_FILE = 'ppp-secret.key';

/** A stored sealed password's shape (what a backup may carry). */
export const SEALED_PASSWORD = /^v1:[A-Za-z0-9+/=]{1,400}$/;

/**
 * Takes over the key of the former file name, so passwords sealed under it keep opening. A
 * hard link then an unlink: a crash between the two leaves both names on one key.
 */
function adoptFormerKey(keyPath: string): void {
  const former = join(dirname(keyPath), FORMER_KEY_FILE);
  try {
    linkSync(former, keyPath);
  } catch {
    return;
  }
  unlinkSync(former);
}

export class AccountSecretSeal {
  private key: Buffer | undefined;

  constructor(private readonly keyPath: string) {}

  private deviceKey(): Buffer {
    if (this.key) return this.key;
    let key: Buffer;
    try {
      key = readFileSync(this.keyPath);
    } catch {
      mkdirSync(dirname(this.keyPath), { recursive: true, mode: 0o700 });
      adoptFormerKey(this.keyPath);
      key = randomBytes(32);
      try {
        // `wx`: two processes racing to make it (or one that adopted the former key) keep the first one.
        const fd = openSync(this.keyPath, 'wx', 0o600);
        writeSync(fd, key);
        closeSync(fd);
      } catch {
        key = readFileSync(this.keyPath);
      }
    }
    if (key.length !== 32) throw new Error(`${this.keyPath} is not a 32-byte key`);
    this.key = key;
    return key;
  }

  seal(username: string, secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.deviceKey(), iv);
    cipher.setAAD(Buffer.from(`${AAD_PREFIX}${username}`));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** The secret, or null when the sealed text is not this device's for this account. */
  open(username: string, sealed: string): string | null {
    if (!sealed.startsWith(`${VERSION}:`)) return null;
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64');
    if (raw.length < 29) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.deviceKey(), raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(`${AAD_PREFIX}${username}`));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
