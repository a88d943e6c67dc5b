// Behaviour audit, search: 10 million URL records (BENCH_AUDIT_RECORDS) of 1,000 LAN clients over
// 30 days in the audit's store, then one client's last 24 hours asked as the console asks it
// (first page of 50, newest first, with the total), each time for another client. Figure: the
// median and the slowest of BENCH_RUNS queries, in ms. Budget: the slowest under 200 ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AuditStore, intToIp } from '../../apps/daemon/src/domains/audit/audit-store.js';
import { median, report, reportError } from './bench-util.mjs';

const NAME = 'audit-query';
const RECORDS = Number(process.env.BENCH_AUDIT_RECORDS ?? 10_000_000);
const CLIENTS = 1000;
const DAYS = 30;
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const DAY = 86_400_000;
const END = Date.UTC(2026, 0, 31);
const FIRST_CLIENT = (192 * 2 ** 24) + (168 << 16);

const work = mkdtempSync(join(tmpdir(), 'portico-bench-audit-query-'));
try {
  const file = join(work, 'audit.db');
  new AuditStore(file).close();
  // Rows made inside SQLite, in time order as a device appends them; the indexes are built
  // once at the end (the store makes them again when it opens), which is the same index in
  // far less time than 10 million single insertions into it.
  const db = new Database(file);
  db.pragma('synchronous = OFF');
  db.exec('DROP INDEX url_client_ts; DROP INDEX url_ts;');
  const started = Date.now();
  const step = (DAYS * DAY) / RECORDS;
  const BATCH = 1_000_000;
  for (let first = 0; first < RECORDS; first += BATCH) {
    const count = Math.min(BATCH, RECORDS - first);
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO url (ts, client, server, port, kind, host, path)
       SELECT ? + CAST(i * ? AS INTEGER), ? + ((i * 7919) % ?), 3325256704 + (i % 4000), CASE i % 2 WHEN 0 THEN 80 ELSE 443 END, i % 2,
              'www' || (i % 5003) || '.example' || (i % 17) || '.test', CASE i % 2 WHEN 0 THEN '/path/' || (i % 10007) ELSE '' END
       FROM n`,
    ).run(first, first + count - 1, END - DAYS * DAY, step, FIRST_CLIENT + 2, CLIENTS);
  }
  db.close();
  const store = new AuditStore(file);
  const fill_s = (Date.now() - started) / 1000;

  const times: number[] = [];
  let rows = 0;
  let total = 0;
  for (let run = 0; run < RUNS; run++) {
    const client = intToIp(FIRST_CLIENT + 2 + ((run * 37) % CLIENTS));
    const t0 = process.hrtime.bigint();
    const page = store.urls({ client, from: END - DAY, to: END, offset: 0, limit: 50 });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    rows = page.items.length;
    total = page.total;
    if (rows === 0) throw new Error(`no records for ${client}`);
  }
  const counts = store.counts();
  store.close();
  const ok = report(
    NAME,
    { records: counts.urls, clients: CLIENTS, days: DAYS, fill_s, runs: RUNS, client_day_records: total, page_rows: rows, query_ms_median: Number(median(times).toFixed(2)), query_ms_max: Number(Math.max(...times).toFixed(2)) },
    { query_ms_max: 200 },
  );
  process.exitCode = ok || !process.env.BENCH_STRICT ? 0 : 1;
} catch (error) {
  reportError(NAME, error);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
