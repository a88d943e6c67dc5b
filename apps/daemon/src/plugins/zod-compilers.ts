import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import type { RouteSchema } from './deferred-schema.js';

// Imports only zod and Fastify types: the stack-floor server (src/floor/) uses it without
// pulling in @portico/schema.

export class ValidationFailure extends Error {
  constructor(readonly error: z.ZodError) {
    super('validation failed');
  }
}

/** Validates with the route's zod schema; a failure becomes a field-error reply, not a 400. */
const zodValidator: FastifySchemaCompiler<RouteSchema> = ({ schema }) => (data) => {
  const result = schema.safeParse(data ?? {});
  return result.success ? { value: result.data } : { error: new ValidationFailure(result.error) };
};

/** Handlers build their answers from typed data; response schemas are documentation only. */
const jsonSerializer = () => (data: unknown) => JSON.stringify(data);

/**
 * Fastify options that install the zod validator and plain JSON serialisation from the start,
 * so Fastify never loads its Ajv and fast-json-stringify compilers (memory and start-up time).
 */
export const schemaControllerOptions = {
  compilersFactory: {
    buildValidator: () => zodValidator,
    buildSerializer: () => jsonSerializer,
  },
};
