import { z } from 'zod';

/** Spec §5: passwords are letters and digits only, 8 to 32 long. */
export const PASSWORD_PATTERN = /^[A-Za-z0-9]+$/;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 32;

export function passwordField() {
  return z
    .string({ error: 'validation.required' })
    .min(1, { error: 'validation.required' })
    .regex(PASSWORD_PATTERN, { error: 'validation.password.chars' })
    .min(PASSWORD_MIN, { error: 'validation.password.length' })
    .max(PASSWORD_MAX, { error: 'validation.password.length' });
}

/** Spec §5: user names are letters and digits only; names are at most 32 characters. */
export const USERNAME_PATTERN = /^[A-Za-z0-9]+$/;
export const NAME_MAX = 32;

export function userNameField() {
  return z
    .string({ error: 'validation.required' })
    .min(1, { error: 'validation.required' })
    .max(NAME_MAX, { error: 'validation.name.length' })
    .regex(USERNAME_PATTERN, { error: 'validation.username.chars' });
}

/** The confirm entry must match the password (spec §5). */
export const PASSWORD_MISMATCH = 'validation.password.mismatch';
