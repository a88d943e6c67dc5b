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

function optionsFor(cost: ScryptCost): ScryptOptions {
  // scrypt needs 128 * N * r bytes; Node's default ceiling (32 MiB) is exactly N=2^15, r=8.
  return { N: 2 ** cost.log2N, r: cost.r, p: cost.p, maxmem: 256 * 2 ** cost.log2N * cost.r };
}

/** scrypt's cost: N = 2^log2N, block size r, parallelism p. */
export interface ScryptCost {
  log2N: number;
  r: number;
  p: number;
}

/** The daemon's own cost: every hash it writes uses it, and none it checks may cost more. */
export const SCRYPT_COST: ScryptCost = { log2N: 15, r: 8, p: 1 };

/** The stored form: `$scrypt$ln=15,r=8,p=1$<salt>$<key>`, base64. */
const STORED_FORM = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/=]{1,64})\$([A-Za-z0-9+/=]{1,128})$/;

/** A stored hash's parts, or null when it is not in the stored form. */
export function parseStoredHash(stored: string): { cost: ScryptCost; salt: Buffer; key: Buffer } | null {
  const match = STORED_FORM.exec(stored);
  if (!match) return null;
  const [, ln, r, p, salt, key] = match as unknown as [string, string, string, string, string, string];
  return { cost: { log2N: Number(ln), r: Number(r), p: Number(p) }, salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

/**
 * Whether a stored hash costs at most `limit` in every parameter. A hash from elsewhere (a
 * restored backup, a copied database) with a higher cost would make one sign-in take seconds
 * of CPU and hundreds of MB: it is refused instead.
 */
export function costWithin(cost: ScryptCost, limit: ScryptCost): boolean {
  return cost.log2N >= 1 && cost.r >= 1 && cost.p >= 1 && cost.log2N <= limit.log2N && cost.r <= limit.r && cost.p <= limit.p;
}

/**
 * scrypt from node:crypto, run on the thread pool. The stored form names its parameters, so a
 * hash of a lower cost still verifies; one of a higher cost than this hasher's never does and
 * is not computed.
 */
export function createScryptHasher(log2N = SCRYPT_COST.log2N, r = SCRYPT_COST.r, p = SCRYPT_COST.p): PasswordHasher {
  const own: ScryptCost = { log2N, r, p };
  return {
    async hash(password) {
      const salt = randomBytes(SALT_LENGTH);
      const key = await derive(password, salt, optionsFor(own));
      return `$scrypt$ln=${log2N},r=${r},p=${p}$${salt.toString('base64')}$${key.toString('base64')}`;
    },
    async verify(password, stored) {
      const parsed = parseStoredHash(stored);
      if (!parsed || parsed.key.length !== KEY_LENGTH || !costWithin(parsed.cost, own)) return false;
      const actual = await derive(password, parsed.salt, optionsFor(parsed.cost));
      return timingSafeEqual(actual, parsed.key);
    },
  };
}
