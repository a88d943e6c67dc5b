import { describe, expect, test } from 'vitest';
import { fromAcceptLanguage, toLanguage } from '../src/helpers/language-codes.js';

describe('language codes (spec: zh-hans -> zh-CN, en-us -> en-US, zh-hant -> zh-TW)', () => {
  test.each([
    ['zh-hans', 'zh-CN'],
    ['zh-hant', 'zh-TW'],
    ['en-us', 'en-US'],
    ['zh_HK', 'zh-TW'],
    ['en-GB', 'en-US'],
    ['de', null],
    [undefined, null],
  ])('%s -> %s', (code, lang) => expect(toLanguage(code)).toBe(lang));

  test('Accept-Language picks the best supported language by quality', () => {
    expect(fromAcceptLanguage('fr-FR,fr;q=0.9,zh-TW;q=0.8,en;q=0.7')).toBe('zh-TW');
    expect(fromAcceptLanguage('en;q=0.5, zh-CN;q=0.9')).toBe('zh-CN');
    expect(fromAcceptLanguage('zh-CN;q=0, de')).toBeNull();
    expect(fromAcceptLanguage(undefined)).toBeNull();
  });
});
