import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deferred, resolveSchema } from '../src/plugins/deferred-schema.js';

describe('deferred route schemas', () => {
  it('builds the schema on first use, once', () => {
    let builds = 0;
    const query = deferred(() => {
      builds += 1;
      return z.object({ page: z.coerce.number().int().min(1) });
    });
    expect(builds).toBe(0);
    expect(query.safeParse({ page: '2' })).toEqual({ success: true, data: { page: 2 } });
    expect(query.safeParse({ page: '0' }).success).toBe(false);
    expect(builds).toBe(1);
    expect(query.schema).toBe(query.schema);
    expect(builds).toBe(1);
  });

  it('resolves to the zod schema for documentation, and leaves other values alone', () => {
    const shape = z.object({ name: z.string() });
    expect(resolveSchema(deferred(() => shape))).toBe(shape);
    expect(resolveSchema(shape)).toBe(shape);
    expect(resolveSchema(undefined)).toBeUndefined();
  });
});
