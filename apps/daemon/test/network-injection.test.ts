import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENTITIES, MENU_MAP, writeSchema, type AnyEntity } from '@portico/schema';
import { HOSTILE_STRINGS, stringSlots, type StringSlot } from '@portico/schema/testing';
import type { RenderedFile } from '../src/engine/engine-types.js';
import { renderNetwork } from '../src/domains/network/network-render.js';
import type { NetworkConfig } from '../src/domains/network/network-config.js';
import { buildConfig, CONFIG_ENTITIES, REPRESENTATIVE, type ConfigInput } from './network-fixture.js';
import { checkRendered } from './network-checker-run.js';

/**
 * Hostile strings in every string field of every Network entity, carried all the way to the
 * files: a value the schema accepts must render without error, must not add a line or a
 * directive to any file (compared with a render of a harmless value in the same place), and
 * the file must still pass its checker. Entities are taken from ENTITIES, so a new Network
 * entity that the renderer does not take fails here until it does.
 */

const work = mkdtempSync(join(tmpdir(), 'portico-injection-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const NETWORK_MODULES = new Set([...MENU_MAP.find((s) => s.path === '/netconf')!.children.map((c) => c.module), 'iptv']);
const configKeyOf = new Map<string, keyof ConfigInput>(Object.entries(CONFIG_ENTITIES).map(([key, name]) => [name, key as keyof ConfigInput]));

/**
 * Values a field may accept that are plainly harmless and name nothing configured (an unused
 * interface or port name first), to render the comparison with.
 */
const HARMLESS = ['zqx9', '192.0.2.77', '255.255.255.0', '02:00:00:00:00:99', 'plain text', 'example.com', 'https://example.com/', '10.99.0.0/16'];

/** A line with every value token masked: separators, quotes, brackets and spacing stay. */
function skeleton(text: string): string {
  return text.replace(/[A-Za-z0-9._:/@-]+/g, 'w');
}

/**
 * What each line is, for each syntax: its directive (dnsmasq key, ip object and verb, sysctl
 * key with the device masked, first nft word) and the skeleton of the rest. A value that adds
 * a line, a directive, a token, a separator or a quote changes it.
 */
function signature(file: RenderedFile): string[] {
  return file.content.split('\n').map((line) => {
    if (line.startsWith('#')) return '#';
    switch (file.check) {
      case 'dnsmasq': {
        const at = line.indexOf('=');
        return at < 0 ? line : `${line.slice(0, at)}${skeleton(line.slice(at))}`;
      }
      case 'sysctl': {
        const [key = '', ...rest] = line.split(' = ');
        return `${key.replace(/^net\/(ipv[46])\/conf\/[^/]+\//, 'net/$1/conf/*/')} = ${skeleton(rest.join(' = '))}`;
      }
      case 'ppp-password':
        // Every byte of the password is one octal escape: their number is the length, not the shape.
        return line.replace(/^password "(?:\\[0-7]{3})+"$/, 'password "\\ooo"');
      case 'ip-batch': {
        const words = line.split(' ');
        return `${words.slice(0, 2).join(' ')} ${skeleton(words.slice(2).join(' '))}`;
      }
      default: {
        const trimmed = line.trimStart();
        const first = trimmed.split(/\s+/)[0] ?? '';
        return `${/^[a-z]/.test(first) ? first : skeleton(first)}${skeleton(trimmed.slice(first.length))}`;
      }
    }
  });
}

/** The first row (or the record) of a part of the configuration input. */
function rowOf(input: ConfigInput, key: keyof ConfigInput): Record<string, unknown> {
  const part = input[key];
  return (Array.isArray(part) ? part[0] : part) as Record<string, unknown>;
}

function withValue(row: Record<string, unknown>, slot: StringSlot, value: string): Record<string, unknown> {
  const current = row[slot.field];
  return { ...row, [slot.field]: slot.inArray ? [value, ...(Array.isArray(current) ? current.slice(1) : [])] : value };
}

/** The row as stored, or undefined when the entity refuses it. */
function stored(entity: AnyEntity, row: Record<string, unknown>, id: string): Record<string, unknown> | undefined {
  const result = writeSchema(entity, entity.kind === 'collection' ? 'add' : 'update').safeParse(row);
  if (!result.success) return undefined;
  return entity.kind === 'collection' ? { ...(result.data as object), id } : (result.data as Record<string, unknown>);
}

/** The validated configuration with the first row (or the record) of one part replaced. */
function replaced(config: NetworkConfig, key: keyof ConfigInput, row: Record<string, unknown>): NetworkConfig {
  const part = config[key];
  return { ...config, [key]: Array.isArray(part) ? [row, ...part.slice(1)] : row } as NetworkConfig;
}

describe('hostile strings through the network renderer', () => {
  it('the corpus is the shared one', () => {
    expect(HOSTILE_STRINGS.length).toBeGreaterThanOrEqual(300);
  });

  for (const entity of ENTITIES) {
    const key = configKeyOf.get(entity.name);
    if (!key) {
      it(`${entity.name} is outside the Network section`, () => {
        expect(NETWORK_MODULES.has(entity.module), `${entity.name} (module ${entity.module}) must be rendered by renderNetwork`).toBe(false);
      });
      continue;
    }

    it(`${entity.name}: accepted values render inertly and pass the checkers`, async () => {
      const config = buildConfig(REPRESENTATIVE);
      const original = rowOf(REPRESENTATIVE, key);
      const part = config[key];
      const id = String((Array.isArray(part) ? (part[0] as { id?: string }).id : undefined) ?? '');
      expect(stored(entity, original, id)).toBeDefined();
      const distinct = new Map<string, RenderedFile>();
      let refused = 0;
      let accepted = 0;
      for (const slot of stringSlots(entity.schema)) {
        const harmless = HARMLESS.map((v) => stored(entity, withValue(original, slot, v), id)).find((row) => row !== undefined);
        const baseline = renderNetwork(harmless ? replaced(config, key, harmless) : config)[0]!.files;
        for (const hostile of HOSTILE_STRINGS) {
          const row = stored(entity, withValue(original, slot, hostile), id);
          if (!row) {
            refused++;
            continue;
          }
          accepted++;
          const files = renderNetwork(replaced(config, key, row))[0]!.files;
          // An empty value means "not set": its render is its own reference, checked below.
          const reference = hostile === '' ? files : baseline;
          expect(files.map((f) => f.target)).toEqual(reference.map((f) => f.target));
          files.forEach((file, i) => {
            const what = `${entity.name}.${slot.field} = ${JSON.stringify(hostile.slice(0, 60))} in ${file.target}`;
            expect(signature(file), what).toEqual(signature(reference[i]!));
            if (file.content !== baseline[i]!.content) distinct.set(`${file.target}\n${file.content}`, file);
          });
        }
      }
      for (const file of distinct.values()) {
        const result = await checkRendered(file, join(work, entity.name));
        if (!result.skipped) expect(result.problems, file.target).toEqual([]);
      }
      console.info(`${entity.name}: ${refused} refused, ${accepted} accepted, ${distinct.size} distinct files checked`);
      expect(refused + accepted).toBe(stringSlots(entity.schema).length * HOSTILE_STRINGS.length);
    }, 120_000);
  }
});
