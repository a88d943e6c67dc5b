import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The secrets of PPP accounts (types pppoe, pptp, l2tp). CHAP and MS-CHAPv2 need the password
 * itself on the server, which a scrypt hash cannot give back, so for these types alone the
 * password is also kept sealed with AES-256-GCM under a device key: 32 random bytes in a 0600
 * file of the state directory, made on first use. The account name is the associated data, so a
 * sealed secret copied onto another account does not open. A backup carries the sealed form only;
 * on another device (another key) it does not open and the account must have its password set again.
 */
export const PPP_ACCOUNT_TYPES = ['pppoe', 'pptp', 'l2tp'] as const;
const VERSION = 'v1';

export function isPppAccountType(type: unknown): boolean {
  return (PPP_ACCOUNT_TYPES as readonly unknown[]).includes(type);
}

export class PppSecretSeal {
  private key: Buffer | undefined;

  constructor(private readonly keyPath: string) {}

  private deviceKey(): Buffer {
    if (this.key) return this.key;
    let key: Buffer;
    try {
      key = readFileSync(this.keyPath);
    } catch {
      mkdirSync(dirname(this.keyPath), { recursive: true, mode: 0o700 });
      key = randomBytes(32);
      try {
        // `wx`: two processes racing to make it keep the first one.
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
    cipher.setAAD(Buffer.from(`ppp:${username}`));
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
      decipher.setAAD(Buffer.from(`ppp:${username}`));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
