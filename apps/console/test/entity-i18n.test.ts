import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { flatten, LANGUAGES, resources } from '@portico/i18n';
import { ENTITIES, type AnyEntity } from '@portico/schema';
import { buildFormModel } from '../src/pages/entity/entity-form-model.js';
import { GAUGE_LABEL, USER_COUNTS } from '../src/pages/dashboard/dashboard-model.js';
import { LOAD_RANGES, rangeLabelKey } from '../src/pages/dashboard/load-chart-model.js';

const flat = Object.fromEntries(LANGUAGES.map((l) => [l, flatten(resources[l])])) as Record<string, Record<string, string>>;
const PAGES = resolve(import.meta.dirname, '../src/pages');

function expectKeys(keys: Iterable<string>) {
  for (const lang of LANGUAGES) {
    const missing = [...keys].filter((key) => !flat[lang]![key]);
    expect(missing, lang).toEqual([]);
  }
}

/** Literal `t('entity.x')`/`t('dashboard.x')` keys used by the page sources. */
function literalKeys(dir: string, namespace: string): Set<string> {
  const pattern = new RegExp(`['"\`](${namespace}\\.[A-Za-z0-9_.]+)['"\`]`, 'g');
  const keys = new Set<string>();
  for (const name of readdirSync(dir)) {
    for (const match of readFileSync(join(dir, name), 'utf8').matchAll(pattern)) keys.add(match[1]!);
  }
  return keys;
}

describe('strings of the generic entity pages', () => {
  test('every literal entity.* key used by the pages exists in every language', () => {
    const keys = literalKeys(join(PAGES, 'entity'), 'entity');
    expect(keys.size).toBeGreaterThan(20);
    expectKeys(keys);
  });

  test('every routed entity has the keys its derived pages ask for', () => {
    const routed = ENTITIES.filter((e): e is AnyEntity => e.route !== undefined);
    expect(routed.length).toBeGreaterThan(0);
    for (const entity of routed) {
      const keys = new Set([`${entity.name}.title`]);
      for (const column of entity.list?.columns ?? []) {
        keys.add(`${entity.name}.field.${column.field}`);
      }
      for (const mode of ['add', 'edit'] as const) {
        for (const field of buildFormModel(entity, mode).fields) {
          keys.add(field.labelKey);
          for (const option of field.options) keys.add(option.labelKey);
        }
      }
      // Option columns show the same labels as the form's selects.
      expectKeys(keys);
    }
  });

  test('admin users: help for the access list and the password rule', () => {
    expectKeys(['adminUser.help.allowd_ips', 'adminUser.help.password', 'adminUser.empty.allowd_ips']);
    expect(flat['en-US']!['adminUser.help.allowd_ips']).toMatch(/CIDR/);
    expect(flat['en-US']!['adminUser.help.password']).toMatch(/8 to 32/);
  });
});

describe('strings of the dashboard', () => {
  test('every literal dashboard.* key and every computed one exists in every language', () => {
    const keys = literalKeys(join(PAGES, 'dashboard'), 'dashboard');
    for (const range of LOAD_RANGES) keys.add(rangeLabelKey(range));
    for (const key of USER_COUNTS) keys.add(`dashboard.user.${key}`);
    for (const key of Object.values(GAUGE_LABEL)) keys.add(key);
    for (const unit of ['days', 'hours', 'minutes', 'seconds']) keys.add(`dashboard.duration.${unit}`);
    expect(keys.size).toBeGreaterThan(30);
    expectKeys(keys);
  });
});
