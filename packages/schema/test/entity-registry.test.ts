import { describe, expect, it } from 'vitest';
import { ENTITIES } from '../src/index.js';

describe('every declared entity', () => {
  it('has no field named `action`: that is the verb of every write (spec §7), so such a field could never be set', () => {
    for (const entity of ENTITIES) expect(Object.keys(entity.schema.shape), entity.name).not.toContain('action');
  });

  it('has a unique name, API path and console route', () => {
    const unique = (values: Array<string | undefined>) => {
      const present = values.filter((v): v is string => v !== undefined);
      return new Set(present).size === present.length;
    };
    expect(unique(ENTITIES.map((e) => e.name))).toBe(true);
    expect(unique(ENTITIES.map((e) => e.path))).toBe(true);
    expect(unique(ENTITIES.map((e) => e.route))).toBe(true);
  });
});
