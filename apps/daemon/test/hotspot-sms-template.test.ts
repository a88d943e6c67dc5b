import { describe, expect, test } from 'vitest';
import { renderTemplate, SMS_TEMPLATE_MAX_LENGTH, validateTemplate } from '../src/domains/hotspot/sms/sms-template.js';

describe('SMS templates: ## placeholders', () => {
  test('a template names only known placeholders, each listed once in order of first use', () => {
    expect(validateTemplate('Account ##account## password ##password##, valid until ##expire## (##account##)')).toEqual({
      ok: true,
      placeholders: ['account', 'password', 'expire'],
    });
    expect(validateTemplate('Your code is ##code##')).toEqual({ ok: true, placeholders: ['code'] });
    expect(validateTemplate('No placeholder at all, # alone is text')).toEqual({ ok: true, placeholders: [] });
  });

  test.each([
    ['', 'sms.template.empty', undefined],
    ['   ', 'sms.template.empty', undefined],
    ['x'.repeat(SMS_TEMPLATE_MAX_LENGTH + 1), 'sms.template.tooLong', undefined],
    ['Code ##code##\nbye', 'sms.template.controlCharacter', undefined],
    ['Code \u0085##code##', 'sms.template.controlCharacter', undefined],
    ['Code ##code', 'sms.template.unclosedPlaceholder', undefined],
    ['Hello ##name##', 'sms.template.unknownPlaceholder', 'name'],
    ['Hello ####', 'sms.template.unknownPlaceholder', ''],
    ['Hello ##Code##', 'sms.template.unknownPlaceholder', 'Code'],
  ])('%j is refused with %s', (text, error, name) => {
    expect(validateTemplate(text)).toEqual(name === undefined ? { ok: false, error } : { ok: false, error, name });
  });

  test('a template at the length bound is accepted', () => {
    expect(validateTemplate('x'.repeat(SMS_TEMPLATE_MAX_LENGTH)).ok).toBe(true);
  });

  test('renders every placeholder, the values in order of first use for the gateways that take parameters', () => {
    const result = renderTemplate('Welcome ##account##: password ##password##, ##upload##/##download## kbps until ##expire##. ##account##', {
      account: 'guest01',
      password: 'Pw<&>"1',
      upload: 512,
      download: 2048,
      expire: '2026-12-31',
    });
    expect(result).toEqual({
      ok: true,
      text: 'Welcome guest01: password Pw<&>"1, 512/2048 kbps until 2026-12-31. guest01',
      params: [
        { name: 'account', value: 'guest01' },
        { name: 'password', value: 'Pw<&>"1' },
        { name: 'upload', value: '512' },
        { name: 'download', value: '2048' },
        { name: 'expire', value: '2026-12-31' },
      ],
    });
  });

  test('a value holding ## is inserted as text and never read as a placeholder', () => {
    const result = renderTemplate('Note: ##custom## / ##code##', { custom: '##code##', code: '1234' });
    expect(result).toEqual({ ok: true, text: 'Note: ##code## / 1234', params: [{ name: 'custom', value: '##code##' }, { name: 'code', value: '1234' }] });
  });

  test('a missing value is an error, never the raw ##name##', () => {
    expect(renderTemplate('Your code is ##code##', {})).toEqual({ ok: false, error: 'sms.value.missing', name: 'code' });
    expect(renderTemplate('Your code is ##code##', { code: '' })).toEqual({ ok: false, error: 'sms.value.missing', name: 'code' });
  });

  test('values with control characters or over the bound are refused', () => {
    expect(renderTemplate('Hi ##account##', { account: 'a\r\nb' })).toEqual({ ok: false, error: 'sms.value.controlCharacter', name: 'account' });
    expect(renderTemplate('Hi ##account##', { account: 'a\u0000' })).toEqual({ ok: false, error: 'sms.value.controlCharacter', name: 'account' });
    expect(renderTemplate('Hi ##account##', { account: 'a'.repeat(101) })).toEqual({ ok: false, error: 'sms.value.tooLong', name: 'account' });
  });

  test('rendering a bad template reports the template error', () => {
    expect(renderTemplate('Hi ##who##', { account: 'x' })).toEqual({ ok: false, error: 'sms.template.unknownPlaceholder', name: 'who' });
  });
});
