import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  accessIpField,
  allModules,
  bytesField,
  cidr6Field,
  cidrField,
  domainField,
  durationField,
  hostnameField,
  iptvLanTagField,
  ipField,
  ipRangeField,
  ipv4Field,
  ipv6Field,
  limitField,
  macField,
  mruField,
  mtuField,
  nameField,
  netmaskField,
  passwordField,
  plainTextField,
  portField,
  portRangeField,
  sharedKeyField,
  speedField,
  tunnelPortField,
  userNameField,
  vlanTagField,
  wanTagField,
} from '../src/index.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const srcDir = join(here, '../src');
const localeDir = join(here, '../../i18n/src/locales');
const LANGUAGES = ['en-US', 'zh-CN', 'zh-TW'] as const;

function flatten(tree: Record<string, unknown>, prefix: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = `${prefix}.${key}`;
    if (value && typeof value === 'object') for (const [k, v] of flatten(value as Record<string, unknown>, path)) out.set(k, v);
    else out.set(path, String(value));
  }
  return out;
}

function namespace(language: string, ns: string): Map<string, string> {
  const json = JSON.parse(readFileSync(join(localeDir, language, `${ns}.json`), 'utf8')) as Record<string, unknown>;
  return flatten(json, ns);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** Every `'validation.x'` literal written in the schema sources. */
function validationKeysInSource(): Set<string> {
  const keys = new Set<string>();
  for (const file of sourceFiles(srcDir)) {
    for (const match of readFileSync(file, 'utf8').matchAll(/['"`](validation\.[A-Za-z0-9_.]+)['"`]/g)) keys.add(match[1]!);
  }
  return keys;
}

/** Values that break each factory, so the messages they really produce are collected. */
const PROBES: Array<[z.ZodType, unknown[]]> = [
  [passwordField(), [undefined, 1, '', 'a_b', 'a', 'a'.repeat(40)]],
  [userNameField(), ['', 'a-b', 'a'.repeat(40)]],
  [nameField(), ['', ' ', 'x'.repeat(40), 'a\nb', 5]],
  [ipv4Field(), ['', 'x', '\u0001']],
  [ipv6Field(), ['x']],
  [ipField(), ['x']],
  [cidrField({ network: true }), ['x', '10.0.0.1/8']],
  [cidr6Field({ network: true }), ['x', 'fd00::1/8']],
  [netmaskField(), ['x']],
  [ipRangeField(), ['x', '10.0.0.2-10.0.0.1']],
  [accessIpField(), ['x']],
  [macField({ unicast: true }), ['x', 'ff:ff:ff:ff:ff:ff']],
  [portField(), [0, 1.5, undefined]],
  [portRangeField(), ['x', '9-1']],
  [vlanTagField(), [0]],
  [wanTagField(), [-1]],
  [iptvLanTagField(), [0]],
  [mtuField(), [1]],
  [mruField(), [1]],
  [sharedKeyField(), ['', 'é', 'x'.repeat(300)]],
  [tunnelPortField(), [1]],
  [limitField(5), [6]],
  [hostnameField(), ['-']],
  [domainField(), ['x']],
  [durationField({ maxSeconds: 1 }), [{ value: -1, unit: 'x' }, { value: 2, unit: 'days' }]],
  [bytesField(), [-1]],
  [speedField(), [-1]],
  [plainTextField(1), ['ab']],
];

describe('validation messages', () => {
  const languages = LANGUAGES.map((l) => [l, namespace(l, 'validation')] as const);

  it('every validation key written in the schema sources exists in all three languages', () => {
    const keys = validationKeysInSource();
    expect(keys.size).toBeGreaterThan(40);
    for (const [language, messages] of languages) {
      const missing = [...keys].filter((k) => !messages.has(k));
      expect(missing, language).toEqual([]);
    }
  });

  it('every message a field factory produces exists in all three languages', () => {
    const produced = new Set<string>();
    for (const [schema, values] of PROBES) {
      for (const value of values) {
        const result = schema.safeParse(value);
        expect(result.success, JSON.stringify(value)).toBe(false);
        if (!result.success) for (const issue of result.error.issues) produced.add(issue.message);
      }
    }
    for (const message of produced) expect(message).toMatch(/^validation\./);
    for (const [language, messages] of languages) {
      expect([...produced].filter((k) => !messages.has(k)), language).toEqual([]);
    }
  });

  it('the three languages hold the same keys, with real translations', () => {
    const english = namespace('en-US', 'validation');
    for (const [language, messages] of languages) {
      expect([...messages.keys()].sort(), language).toEqual([...english.keys()].sort());
      for (const [key, text] of messages) expect(text.trim(), `${language} ${key}`).not.toBe('');
    }
    for (const [language, messages] of languages.slice(1)) {
      for (const [key, text] of messages) expect(text, `${language} ${key}`).toMatch(/[\u4e00-\u9fff]/);
    }
  });
});

describe('menu labels', () => {
  it('every section and page module has a label in all three languages', () => {
    for (const language of LANGUAGES) {
      const labels = namespace(language, 'menu');
      const missing = allModules().filter((m) => !labels.get(`menu.${m}`)?.trim());
      expect(missing, language).toEqual([]);
    }
  });

  it('Chinese labels are translations, not English copies', () => {
    const english = namespace('en-US', 'menu');
    for (const language of ['zh-CN', 'zh-TW'] as const) {
      const labels = namespace(language, 'menu');
      for (const m of allModules()) {
        expect(labels.get(`menu.${m}`), `${language} ${m}`).toMatch(/[\u4e00-\u9fff]/);
        expect(labels.get(`menu.${m}`)).not.toBe(english.get(`menu.${m}`));
      }
    }
  });
});
