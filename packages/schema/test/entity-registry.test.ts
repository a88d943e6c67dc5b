import { describe, expect, it } from 'vitest';
import { ENTITIES, entityFormRoutes } from '../src/index.js';

describe('every declared entity', () => {
  it('has no field named `action`: that is the verb of every write (spec §7), so such a field could never be set', () => {
    for (const entity of ENTITIES) expect(Object.keys(entity.schema.shape), entity.name).not.toContain('action');
  });

  it('has a unique name and API path', () => {
    const unique = (values: Array<string | undefined>) => {
      const present = values.filter((v): v is string => v !== undefined);
      return new Set(present).size === present.length;
    };
    expect(unique(ENTITIES.map((e) => e.name))).toBe(true);
    expect(unique(ENTITIES.map((e) => e.path))).toBe(true);
  });

  it('shares a console route only with entities whose forms have their own sub-routes', () => {
    const byRoute = new Map<string, string[]>();
    for (const entity of ENTITIES) {
      if (!entity.route) continue;
      const segments = entityFormRoutes(entity).map((r) => r.segment);
      const taken = byRoute.get(entity.route) ?? [];
      for (const segment of segments) expect(taken, `${entity.name} ${segment}`).not.toContain(segment);
      byRoute.set(entity.route, [...taken, ...segments]);
    }
  });
});
