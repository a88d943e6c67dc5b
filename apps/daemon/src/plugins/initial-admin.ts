import { randomInt } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_ADMIN, ROLES } from '@portico/schema';
import type { AccountStore } from './account-store.js';
import type { PasswordHasher } from './password-hash.js';

export const INITIAL_PASSWORD_FILE = 'initial-admin-password';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 16 letters and digits from the CSPRNG; randomInt avoids modulo bias. */
export function randomPassword(length = 16): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** Write, fsync, rename: the file is either absent or complete, and never world-readable. */
export function writeFileAtomic(path: string, content: string, mode = 0o600): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

export function initialPasswordPath(stateDir: string): string {
  return join(stateDir, INITIAL_PASSWORD_FILE);
}

export function removeInitialPasswordFile(stateDir: string): void {
  rmSync(initialPasswordPath(stateDir), { force: true });
}

/**
 * On a fresh database, creates the built-in `admin` with a random password that must be
 * changed at first sign-in. Returns the password and where it was written, or null when
 * accounts already exist. There is no fixed default password.
 */
export async function ensureInitialAdmin(
  accounts: AccountStore,
  passwords: PasswordHasher,
  stateDir: string,
): Promise<{ password: string; file: string } | null> {
  if (accounts.count() > 0) return null;
  const password = randomPassword();
  const passwordHash = await passwords.hash(password);
  // Another start may have raced us while hashing.
  if (accounts.count() > 0) return null;
  accounts.insert({ username: BUILTIN_ADMIN, passwordHash, privilege: ROLES.manager, mustChangePassword: true });
  const file = initialPasswordPath(stateDir);
  writeFileAtomic(file, `${password}\n`);
  return { password, file };
}
