import { describe, expect, test } from 'vitest';
import { ENTITIES } from '@portico/schema';
import { ENTITY_ROUTES } from '../src/routes/entity-routes.js';

describe('entity routes', () => {
  test('the light list of the first load names exactly the entities that declare a route', () => {
    const declared = [...new Set(ENTITIES.flatMap((e) => (e.route ? [e.route] : [])))].sort();
    expect([...ENTITY_ROUTES].sort()).toEqual(declared);
  });
});
