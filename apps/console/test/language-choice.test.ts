import { describe, expect, test } from 'vitest';
import {
  LANGUAGE_STORAGE_KEY,
  pickLanguage,
  readStoredLanguage,
  storeLanguage,
} from '../src/i18n/language-choice.js';

function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    getItem: (key: string) => data.get(key) ?? null,
    setItem: (key: string, value: string) => void data.set(key, value),
    data,
  };
}

describe('pickLanguage', () => {
  test('an earlier choice wins over the device and the browser', () => {
    expect(pickLanguage({ stored: 'zh-TW', server: 'zh-CN', browser: ['en-US'] })).toBe('zh-TW');
  });

  test('then the device, then the browser, then en-US', () => {
    expect(pickLanguage({ stored: null, server: 'zh-CN', browser: ['en-GB'] })).toBe('zh-CN');
    expect(pickLanguage({ browser: ['fr-FR', 'zh-HK', 'en'] })).toBe('zh-TW');
    expect(pickLanguage({ browser: ['fr-FR', 'de'] })).toBe('en-US');
    expect(pickLanguage({})).toBe('en-US');
  });

  test('codes map as the spec says: zh-hans, zh-hant, en-us', () => {
    expect(pickLanguage({ server: 'zh-hans' })).toBe('zh-CN');
    expect(pickLanguage({ server: 'zh-hant' })).toBe('zh-TW');
    expect(pickLanguage({ server: 'en-us' })).toBe('en-US');
    expect(pickLanguage({ stored: 'klingon', server: 'zh_CN' })).toBe('zh-CN');
  });
});

describe('remembered choice', () => {
  test('stored and read back under one key', () => {
    const storage = memoryStorage();
    storeLanguage(storage, 'zh-CN');
    expect(storage.data.get(LANGUAGE_STORAGE_KEY)).toBe('zh-CN');
    expect(readStoredLanguage(storage)).toBe('zh-CN');
  });

  test('garbage, absent or refusing storage reads as no choice', () => {
    expect(readStoredLanguage(memoryStorage({ [LANGUAGE_STORAGE_KEY]: '<script>' }))).toBeNull();
    expect(readStoredLanguage(undefined)).toBeNull();
    const refusing = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(readStoredLanguage(refusing)).toBeNull();
    expect(() => storeLanguage(refusing, 'en-US')).not.toThrow();
  });
});
