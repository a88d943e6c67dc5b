import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { fieldErrors, writeSchema, type AnyEntity } from '../src/entity/define-entity.js';
import { ENTITIES } from '../src/entity/entity-registry.js';
import { isSafeText } from '../src/common/text-guard.js';
import { HOSTILE_STRINGS, stringSlots } from '../src/testing/hostile-strings.js';
import { SAMPLE_INPUT } from './network-samples.js';

/**
 * Every string field of every declared entity (lists included) against the hostile corpus: a
 * value is either refused with an error on that field, or stored free of control characters,
 * line breaks, bidi marks and broken surrogates. Entities join by being in ENTITIES; one
 * without a sample here gets one built from its field types.
 */

const EXPLICIT: Record<string, object> = {
  adminUser: { username: 'operator1', password: 'Abcdefg12', confirm: 'Abcdefg12', privilege: 2, allowd_ips: [] },
  wirelessSsid: { group: '0b6f6a4e-2f36-4c1e-9f55-0a1b2c3d4e5f', ssid: 'Office', key: 'correct horse' },
  cpeProfile: { name: 'link-north', ssid: 'north-link', key: 'bridge-passphrase' },
  emailRecipient: { name: 'duty desk', address: 'duty@example.com', events: ['dhcpServer', 'ipConflict'] },
  ipsecPeer: { name: 'branch', remote_addr: '198.51.100.9', local_subnets: '192.168.1.0/24', peer_subnets: '10.50.0.0/16', local_id: 'hq.example.com', remote_id: 'branch.example.com', psk: 'pre-shared key 1' },
};
for (const [name, rows] of Object.entries(SAMPLE_INPUT)) {
  const { id: _id, ...first } = (rows as readonly object[])[0] as { id?: string };
  EXPLICIT[name] = first;
}

const STRING_GUESSES = ['lan', 'eth0', '192.168.1.10', '255.255.255.0', '00:11:22:33:44:55', 'Abcdefg12', '10.0.0.0/8', 'example.com', 'https://example.com/', 'x'];
const NUMBER_GUESSES = [1, 0, 100, 1450, 1194, 4443];

function modeOf(entity: AnyEntity): 'add' | 'update' {
  return entity.kind === 'collection' ? 'add' : 'update';
}

/** A record the entity accepts, guessed from each field's type when no sample is given. */
function sampleFor(entity: AnyEntity): object {
  if (EXPLICIT[entity.name]) return EXPLICIT[entity.name]!;
  const out: Record<string, unknown> = {};
  for (const [field, type] of Object.entries(entity.schema.shape as Record<string, z.ZodType>)) {
    if (field === 'id' || type.safeParse(undefined).success) continue;
    const guesses: unknown[] = [...STRING_GUESSES, ...NUMBER_GUESSES, false, true, [], {}];
    out[field] = guesses.find((g) => type.safeParse(g).success);
  }
  return out;
}

describe('hostile strings in every string field of every entity', () => {
  it('the corpus is large and covers the kinds of attack it names', () => {
    expect(HOSTILE_STRINGS.length).toBeGreaterThanOrEqual(300);
    expect(new Set(HOSTILE_STRINGS).size).toBe(HOSTILE_STRINGS.length);
    const has = (test: (s: string) => boolean) => HOSTILE_STRINGS.some(test);
    expect(has((s) => s.includes('$('))).toBe(true);
    expect(has((s) => s.includes('`'))).toBe(true);
    expect(has((s) => s.startsWith('-'))).toBe(true);
    expect(has((s) => s === 'x\ndhcp-script=/tmp/x')).toBe(true);
    expect(has((s) => s.includes('\u0000'))).toBe(true);
    expect(has((s) => s === 'a";flush ruleset;"')).toBe(true);
    expect(has((s) => s.includes('../'))).toBe(true);
    expect(has((s) => s.length >= 65_536)).toBe(true);
    expect(has((s) => /[\ud800-\udbff](?![\udc00-\udfff])/.test(s))).toBe(true);
    expect(has((s) => s.includes('\u202e'))).toBe(true);
    expect(has((s) => s.includes('；'))).toBe(true);
    expect(has((s) => s.startsWith('#'))).toBe(true);
  });

  for (const entity of ENTITIES) {
    it(`${entity.name}: refused on the field, or stored inert`, () => {
      const base = sampleFor(entity);
      const clean = writeSchema(entity, modeOf(entity)).safeParse(base);
      expect(clean.success, `${entity.name} sample: ${clean.success ? '' : JSON.stringify(fieldErrors(clean.error))}`).toBe(true);
      const slots = stringSlots(entity.schema);
      if (slots.length === 0) {
        // Numbers and switches only (network parameters): every field refuses every hostile string.
        for (const field of Object.keys(entity.schema.shape)) {
          for (const hostile of HOSTILE_STRINGS) {
            const result = writeSchema(entity, modeOf(entity)).safeParse({ ...base, [field]: hostile });
            expect(result.success, `${entity.name}.${field} took ${JSON.stringify(hostile.slice(0, 80))}`).toBe(false);
            if (!result.success) expect(fieldErrors(result.error)[field]).toMatch(/^validation\./);
          }
        }
        return;
      }
      let refused = 0;
      let accepted = 0;
      for (const slot of slots) {
        for (const hostile of HOSTILE_STRINGS) {
          const value = slot.inArray ? [hostile] : hostile;
          const result = writeSchema(entity, modeOf(entity)).safeParse({ ...base, [slot.field]: value });
          if (!result.success) {
            const errors = fieldErrors(result.error);
            if (errors[slot.field]) {
              expect(errors[slot.field]).toMatch(/^validation\./);
              refused++;
              continue;
            }
            // The field took the value and a rule across fields refused the record (a
            // password that is valid but differs from its confirmation): it must be inert.
            expect(isSafeText(hostile), `${entity.name}.${slot.field} took ${JSON.stringify(hostile.slice(0, 80))}`).toBe(true);
            accepted++;
            continue;
          }
          accepted++;
          const stored = (result.data as Record<string, unknown>)[slot.field];
          for (const text of Array.isArray(stored) ? stored : [stored]) {
            if (typeof text === 'string') expect(isSafeText(text), `${entity.name}.${slot.field} stored ${JSON.stringify(text.slice(0, 80))}`).toBe(true);
          }
        }
      }
      expect(refused + accepted).toBe(slots.length * HOSTILE_STRINGS.length);
      expect(refused).toBeGreaterThan(0);
    }, 60_000); // thousands of validations per entity: generous on a loaded machine
  }
});
