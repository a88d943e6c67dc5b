import { z } from 'zod';
import { fieldErrors, passwordField, PASSWORD_MISMATCH } from '@portico/schema';

/** The body of POST /api/changepwd. */
export interface PasswordChange {
  oldpassword: string;
  password: string;
  confirm: string;
}

export type PasswordChangeErrors = Partial<Record<keyof PasswordChange, string>>;

const passwordChangeSchema = z.object({
  oldpassword: z.string().min(1, { error: 'validation.required' }),
  password: passwordField(),
  confirm: z.string(),
});

/**
 * Spec §5 before the request goes out: the new password is 8 to 32 letters and digits and
 * the confirmation matches it. Values are i18n keys, one per field.
 */
export function validatePasswordChange(values: PasswordChange): PasswordChangeErrors {
  const result = passwordChangeSchema.safeParse(values);
  const errors: PasswordChangeErrors = result.success ? {} : (fieldErrors(result.error) as PasswordChangeErrors);
  if (!errors.confirm && values.password !== values.confirm) errors.confirm = PASSWORD_MISMATCH;
  return errors;
}

/** Field errors the daemon returned, limited to the fields this form has. */
export function serverFieldErrors(errors: Record<string, string> | undefined): PasswordChangeErrors {
  const out: PasswordChangeErrors = {};
  for (const field of ['oldpassword', 'password', 'confirm'] as const) {
    const key = errors?.[field];
    if (key) out[field] = key;
  }
  return out;
}
