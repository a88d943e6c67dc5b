import { z } from 'zod';
import { isSafeText, TEXT_CONTROL_MESSAGE } from './text-guard.js';

/** Options shared by the address-like text fields. */
export interface TextFieldOptions {
  /** Accept '' as "not set" (optional addresses, empty = unrestricted). */
  allowEmpty?: boolean;
}

/** A missing value reads "required"; a value of the wrong type reads "wrong type". */
function missingOr(type: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? 'validation.required' : type);
}

/** A string that must be present. Emptiness is left to the caller's rules. */
export function stringBase() {
  return z.string({ error: missingOr('validation.type') });
}

/**
 * A string accepted when `check` passes (or when empty and allowed). Control characters are
 * refused first so the reported message names the real problem.
 */
export function checkedString(check: (value: string) => boolean, message: string, options: TextFieldOptions = {}) {
  const base = stringBase().refine(isSafeText, { error: TEXT_CONTROL_MESSAGE });
  const withRequired = options.allowEmpty ? base : base.min(1, { error: 'validation.required' });
  return withRequired.refine((v) => (v === '' && options.allowEmpty === true) || (v !== '' && check(v)), {
    error: message,
  });
}

/** An integer in [min, max]; both bounds report the same range message. */
export function integerInRange(min: number, max: number, message: string) {
  return z
    .number({ error: missingOr('validation.integer') })
    .int({ error: 'validation.integer' })
    .min(min, { error: message })
    .max(max, { error: message });
}
