import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** Hashes and checks account passwords. Passed in so tests can count or slow down checks. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function optionsFor(log2N: number, r: number, p: number): ScryptOptions {
  // scrypt needs 128 * N * r bytes; Node's default ceiling (32 MiB) is exactly N=2^15, r=8.
  return { N: 2 ** log2N, r, p, maxmem: 256 * 2 ** log2N * r };
}

/**
 * scrypt from node:crypto, run on the thread pool. The stored form names its parameters
 * (`$scrypt$ln=15,r=8,p=1$<salt>$<key>`, base64) so a later cost change still verifies old hashes.
 */
export function createScryptHasher(log2N = 15, r = 8, p = 1): PasswordHasher {
  return {
    async hash(password) {
      const salt = randomBytes(SALT_LENGTH);
      const key = await derive(password, salt, optionsFor(log2N, r, p));
      return `$scrypt$ln=${log2N},r=${r},p=${p}$${salt.toString('base64')}$${key.toString('base64')}`;
    },
    async verify(password, stored) {
      const match = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
      if (!match) return false;
      const [, ln, sr, sp, salt, key] = match as unknown as [string, string, string, string, string, string];
      const expected = Buffer.from(key, 'base64');
      if (expected.length !== KEY_LENGTH || Number(ln) > 20) return false;
      const actual = await derive(password, Buffer.from(salt, 'base64'), optionsFor(Number(ln), Number(sr), Number(sp)));
      return timingSafeEqual(actual, expected);
    },
  };
}
