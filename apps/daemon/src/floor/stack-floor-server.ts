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
// The daemon's own zod validator and JSON serialiser (no Ajv); that module imports nothing of
// the product.
import { schemaControllerOptions } from '../plugins/zod-compilers.js';

const stateDir = process.env.PORTICO_STATE_DIR ?? './var';
mkdirSync(stateDir, { recursive: true });
const db = new Database(join(stateDir, 'floor.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec('CREATE TABLE IF NOT EXISTS setting (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
db.prepare('INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)').run('lang', 'en-US');
const readLang = db.prepare('SELECT value FROM setting WHERE key = ?');

const app = Fastify({ logger: { level: process.env.PORTICO_LOG_LEVEL ?? 'warn' }, schemaController: schemaControllerOptions as never });
app.get('/api/changelang', { schema: { querystring: z.object({ _: z.string().optional() }) } }, async () => {
  const row = readLang.get('lang') as { value: string } | undefined;
  return { success: true, data: { lang: row?.value ?? 'en-US' } };
});
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
await app.listen({ port: Number(process.env.PORTICO_PORT ?? 8080), host: process.env.PORTICO_HOST ?? '127.0.0.1' });
