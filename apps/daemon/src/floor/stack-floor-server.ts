/**
 * The smallest server built from the stack the daemon is required to use: Fastify 5 with its
 * pino logger, a zod-validated route (the daemon's own validator and serialiser, so no Ajv),
 * better-sqlite3 in WAL mode with one table. Nothing of the product. The idle-memory benchmark
 * starts it the way it starts the daemon and reports its RSS as the floor that no daemon on
 * this stack can go below (tests/bench/daemon-startup.bench.mjs). Bundled by build.mjs with the
 * daemon's own options into dist/stack-floor-server.mjs.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { z } from 'zod';

const stateDir = process.env.PORTICO_STATE_DIR ?? './var';
mkdirSync(stateDir, { recursive: true });
const db = new Database(join(stateDir, 'floor.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec('CREATE TABLE IF NOT EXISTS setting (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
db.prepare('INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)').run('lang', 'en-US');
const readLang = db.prepare('SELECT value FROM setting WHERE key = ?');

// Validation by zod and plain JSON replies, as the daemon does, so Ajv is never loaded. Written
// out here rather than imported from plugins/api-envelope.ts, which would pull in @portico/schema.
type ZodRouteSchema = { safeParse(data: unknown): { success: boolean; data?: unknown; error?: unknown } };
const schemaController = {
  compilersFactory: {
    buildValidator: () => ({ schema }: { schema: ZodRouteSchema }) => (data: unknown) => {
      const result = schema.safeParse(data ?? {});
      return result.success ? { value: result.data } : { error: new Error('validation failed') };
    },
    buildSerializer: () => () => (data: unknown) => JSON.stringify(data),
  },
};
const app = Fastify({ logger: { level: process.env.PORTICO_LOG_LEVEL ?? 'warn' }, schemaController: schemaController as never });
app.get('/api/changelang', { schema: { querystring: z.object({ _: z.string().optional() }) } }, async () => {
  const row = readLang.get('lang') as { value: string } | undefined;
  return { success: true, data: { lang: row?.value ?? 'en-US' } };
});
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
await app.listen({ port: Number(process.env.PORTICO_PORT ?? 8080), host: process.env.PORTICO_HOST ?? '127.0.0.1' });
