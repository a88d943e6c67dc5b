import { describe, expect, test } from 'vitest';
import { flatten, LANGUAGES, resources, toLanguage } from '../src/index.js';
import { portalResources } from '../src/portal.js';
import { ENTITIES, formFieldNames } from '@portico/schema';

const flat = Object.fromEntries(LANGUAGES.map((l) => [l, flatten(resources[l])])) as Record<string, Record<string, string>>;
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

describe('locale resources', () => {
  test('the three languages have exactly the same keys', () => {
    const reference = Object.keys(flat['en-US']!).sort();
    for (const lang of LANGUAGES) expect(Object.keys(flat[lang]!).sort(), lang).toEqual(reference);
  });

  test('no empty strings and the same interpolation placeholders in every language', () => {
    for (const [key, text] of Object.entries(flat['en-US']!)) {
      for (const lang of LANGUAGES) {
        const other = flat[lang]![key]!;
        expect(other.trim(), `${lang}:${key}`).not.toBe('');
        expect(placeholders(other), `${lang}:${key}`).toEqual(placeholders(text));
      }
    }
  });

  test('Chinese resources are translated, not English copies', () => {
    const english = flat['en-US']!;
    for (const lang of ['zh-CN', 'zh-TW']) {
      const copies = Object.entries(flat[lang]!).filter(
        ([key, text]) => /[A-Za-z]{4,}/.test(text) && text === english[key] && !/languageName|\.(sn|mac|ip|cpu)$/.test(key),
      );
      // A few product names and units stay as they are; most text must not.
      expect(copies.length, copies.map(([k]) => k).join(', ')).toBeLessThan(Object.keys(english).length * 0.1);
    }
  });

  test('portal resources are the portal namespace only', () => {
    for (const lang of LANGUAGES) expect(Object.keys(portalResources[lang])).toEqual(['portal']);
  });

  test('every declared entity has its title, field labels and option labels in every language', () => {
    for (const entity of ENTITIES) {
      const keys = [`${entity.name}.title`];
      for (const field of formFieldNames(entity)) keys.push(`${entity.name}.field.${field}`);
      for (const column of entity.list?.columns ?? []) keys.push(`${entity.name}.field.${column.field}`);
      for (const tab of entity.form?.tabs ?? []) {
        for (const field of tab.fields) {
          for (const option of field.options ?? []) keys.push(`${entity.name}.option.${field.name}.${option}`);
        }
      }
      for (const lang of LANGUAGES) for (const key of keys) expect(flat[lang]![key], `${lang}:${key}`).toBeTruthy();
    }
  });
});

describe('language codes', () => {
  test.each([
    ['zh-hans', 'zh-CN'],
    ['zh-hant', 'zh-TW'],
    ['en-us', 'en-US'],
    ['zh-CN', 'zh-CN'],
    ['EN-US', 'en-US'],
    ['fr-FR', null],
    ['', null],
  ])('%s -> %s', (code, lang) => {
    expect(toLanguage(code)).toBe(lang);
  });
});
