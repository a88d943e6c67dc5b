import { describe, expect, test } from 'vitest';
import { PASSWORD_MISMATCH } from '@portico/schema';
import { serverFieldErrors, validatePasswordChange } from '../src/pages/modpwd/password-change-rules.js';

describe('validatePasswordChange (spec §5)', () => {
  test('a valid change has no errors', () => {
    expect(validatePasswordChange({ oldpassword: 'admin', password: 'Secret123', confirm: 'Secret123' })).toEqual({});
  });

  test('every field is required', () => {
    expect(validatePasswordChange({ oldpassword: '', password: '', confirm: '' })).toEqual({
      oldpassword: 'validation.required',
      password: 'validation.required',
    });
  });

  test('letters and digits only, 8 to 32 long', () => {
    expect(validatePasswordChange({ oldpassword: 'a', password: 'short1', confirm: 'short1' }).password).toBe(
      'validation.password.length',
    );
    expect(validatePasswordChange({ oldpassword: 'a', password: 'x'.repeat(33), confirm: 'x'.repeat(33) }).password).toBe(
      'validation.password.length',
    );
    expect(validatePasswordChange({ oldpassword: 'a', password: 'pass word1', confirm: 'pass word1' }).password).toBe(
      'validation.password.chars',
    );
    expect(validatePasswordChange({ oldpassword: 'a', password: 'x'.repeat(32), confirm: 'x'.repeat(32) })).toEqual({});
  });

  test('the confirmation must match, even when the new password is itself wrong', () => {
    expect(validatePasswordChange({ oldpassword: 'a', password: 'Secret123', confirm: 'Secret124' })).toEqual({
      confirm: PASSWORD_MISMATCH,
    });
    expect(validatePasswordChange({ oldpassword: 'a', password: 'bad', confirm: '' })).toEqual({
      password: 'validation.password.length',
      confirm: PASSWORD_MISMATCH,
    });
  });

  test('every error key has a text in the console languages', async () => {
    const { i18n } = await import('../src/i18n/console-i18n.js');
    for (const key of ['validation.required', 'validation.password.length', 'validation.password.chars', PASSWORD_MISMATCH]) {
      for (const lng of ['en-US', 'zh-CN', 'zh-TW']) expect(i18n.exists(key, { lng }), `${key} ${lng}`).toBe(true);
    }
  });
});

describe('serverFieldErrors', () => {
  test('keeps the errors of this form fields only', () => {
    expect(serverFieldErrors({ oldpassword: 'validation.password.wrong', other: 'x' })).toEqual({
      oldpassword: 'validation.password.wrong',
    });
    expect(serverFieldErrors(undefined)).toEqual({});
  });
});
