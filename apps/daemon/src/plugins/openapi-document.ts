import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ENTITIES, publicSchema, writeSchema, type AnyEntity } from '@portico/schema';
import daemonPackage from '../../package.json' with { type: 'json' };
import { envelope } from './api-envelope.js';
import { resolveSchema } from './deferred-schema.js';
import type { RouteEntry } from './route-policy.js';

type Json = Record<string, unknown>;

/**
 * zod -> JSON Schema 2020-12 (the dialect of OpenAPI 3.1). Schemas registered with an id are
 * hoisted into components.schemas so each is written once.
 */
class SchemaConverter {
  readonly components: Record<string, Json> = {};

  convert(declared: unknown, io: 'input' | 'output'): Json {
    const schema = resolveSchema(declared);
    if (!(schema instanceof z.ZodType)) return {};
    let json: Json;
    try {
      json = z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any', io, cycles: 'ref', reused: 'inline' }) as Json;
    } catch {
      return {};
    }
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    delete json.$schema;
    for (const [name, def] of Object.entries(defs)) this.components[name] ??= this.relink(def) as Json;
    return this.relink(json) as Json;
  }

  private relink(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.relink(v));
    if (value && typeof value === 'object') {
      const out: Json = {};
      for (const [key, inner] of Object.entries(value)) {
        out[key] = key === '$ref' && typeof inner === 'string' ? inner.replace('#/$defs/', '#/components/schemas/') : this.relink(inner);
      }
      return out;
    }
    return value;
  }
}

function entitySchemaName(entity: AnyEntity, suffix = ''): string {
  return entity.name.charAt(0).toUpperCase() + entity.name.slice(1) + suffix;
}

/** Builds the OpenAPI 3.1 document from the registered routes and the entity declarations. */
export function buildOpenApiDocument(routes: readonly RouteEntry[]): Json {
  const converter = new SchemaConverter();
  const paths: Record<string, Record<string, Json>> = {};

  for (const entity of ENTITIES) {
    converter.components[entitySchemaName(entity)] = converter.convert(publicSchema(entity), 'output');
    converter.components[entitySchemaName(entity, 'Add')] = converter.convert(writeSchema(entity, 'add'), 'input');
  }

  for (const route of routes) {
    if (!route.url.startsWith('/api/')) continue;
    const method = route.method.toLowerCase();
    const operation: Json = {
      operationId: `${method}${route.url.slice(4).replace(/[/_-]+(\w)/g, (_m, c: string) => c.toUpperCase())}`,
      tags: [route.url.split('/')[2] ?? 'api'],
    };
    if (route.doc?.summary) operation.summary = route.doc.summary;
    if (route.policy) {
      operation['x-portico-policy'] = route.policy;
      operation.security = [route.method === 'POST' ? { sessionCookie: [], csrfToken: [] } : { sessionCookie: [] }];
    } else {
      operation.security = [];
    }
    if (route.doc?.entity) operation['x-portico-entity'] = route.doc.entity;

    const parameters: Json[] = [
      { name: '_', in: 'query', required: false, description: 'Cache-busting timestamp; ignored', schema: { type: 'string' } },
    ];
    const query = converter.convert(route.schema?.querystring ?? route.doc?.querystring, 'input');
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, Json>)) {
      parameters.push({ name, in: 'query', required: required.has(name), schema });
    }
    operation.parameters = parameters;

    const body = route.schema?.body ?? route.doc?.body;
    if (body) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: converter.convert(body, 'input') } } };
    }
    const response = route.schema?.response?.['200'] ?? route.schema?.response?.[200] ?? route.doc?.response ?? envelope();
    operation.responses = {
      '200': { description: 'Contract envelope: success with data, or success false with msg and field errors', content: { 'application/json': { schema: converter.convert(response, 'output') } } },
      ...(route.public ? {} : { '401': { description: 'No valid session' } }),
    };
    (paths[route.url] ??= {})[method] = operation;
  }

  return {
    openapi: '3.1.0',
    info: { title: 'Portico gateway API', version: daemonPackage.version },
    paths,
    components: {
      schemas: converter.components,
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'portico_sid' },
        csrfToken: { type: 'apiKey', in: 'header', name: 'x-csrf-token' },
      },
    },
  };
}

/**
 * GET /api/openapi.json, built on the first request so start-up does not pay for it. The
 * document is sent as is, not in the envelope, so OpenAPI tools read it directly.
 */
export function registerOpenApiRoute(app: FastifyInstance, routes: readonly RouteEntry[]): void {
  let document: string | undefined;
  app.get('/api/openapi.json', { config: { policy: { module: 'system', effect: 'read' } } }, async (_request, reply) => {
    document ??= JSON.stringify(buildOpenApiDocument(routes));
    return reply.type('application/json; charset=utf-8').send(document);
  });
}
