import { z } from 'zod';

/**
 * A route schema built on first use instead of at start-up. zod schemas are heavy objects, and
 * most route schemas (the list query of every entity, reply and body shapes kept only for the
 * OpenAPI document) serve no request until someone opens that page or the document: built
 * eagerly for every entity they were a large share of the idle daemon's heap.
 *
 * Fastify hands it to the daemon's validator like a zod schema (it has safeParse); documentation
 * code reads the real schema through resolveSchema().
 */
export class DeferredSchema<T extends z.ZodType = z.ZodType> {
  #build: (() => T) | undefined;
  #built: T | undefined;

  constructor(build: () => T) {
    this.#build = build;
  }

  get schema(): T {
    if (this.#built === undefined) {
      this.#built = this.#build!();
      this.#build = undefined;
    }
    return this.#built;
  }

  safeParse(data: unknown): z.ZodSafeParseResult<z.output<T>> {
    return this.schema.safeParse(data) as z.ZodSafeParseResult<z.output<T>>;
  }
}

export function deferred<T extends z.ZodType>(build: () => T): DeferredSchema<T> {
  return new DeferredSchema(build);
}

/** A schema as a route declares it: built already, or built on first use. */
export type RouteSchema = z.ZodType | DeferredSchema;

/** The zod schema behind a route schema; anything else is returned as it is. */
export function resolveSchema(schema: unknown): unknown {
  return schema instanceof DeferredSchema ? schema.schema : schema;
}
