import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/**
 * The behaviour audit's records: one SQLite file on the disk the administrator chose, apart
 * from the configuration database (records come by the thousand a second and are thrown away
 * by age and disk use; configuration must never share their disk's fate). Addresses are kept
 * as integers and the kind as a number, so a URL record is a few dozen bytes.
 *
 * Every query is by client and/or time through an index; a text filter narrows what those give.
 */

export const URL_KINDS = ['http', 'tls'] as const;
export type UrlKind = (typeof URL_KINDS)[number];
export const FLOW_PROTOS = { 6: 'tcp', 17: 'udp', 1: 'icmp' } as const;

export interface UrlRecord {
  ts: number;
  client: string;
  server: string;
  port: number;
  kind: UrlKind;
  host: string;
  path: string;
}

export interface FlowRecord {
  ts: number;
  client: string;
  cport: number;
  server: string;
  port: number;
  proto: string;
}

export interface AuditQuery {
  client?: string;
  from: number;
  to: number;
  /** URLs: part of the host or path; flows: a server address or port. */
  text?: string;
  offset: number;
  limit: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS url (ts INTEGER NOT NULL, client INTEGER NOT NULL, server INTEGER NOT NULL, port INTEGER NOT NULL, kind INTEGER NOT NULL, host TEXT NOT NULL, path TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS url_client_ts ON url (client, ts);
CREATE INDEX IF NOT EXISTS url_ts ON url (ts);
CREATE TABLE IF NOT EXISTS flow (ts INTEGER NOT NULL, client INTEGER NOT NULL, cport INTEGER NOT NULL, server INTEGER NOT NULL, port INTEGER NOT NULL, proto INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS flow_client_ts ON flow (client, ts);
CREATE INDEX IF NOT EXISTS flow_ts ON flow (ts);
`;

export function ipToInt(ip: string): number | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  let out = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    out = out * 256 + Number(part);
  }
  return out;
}

export function intToIp(value: number): string {
  return `${Math.floor(value / 16777216) % 256}.${Math.floor(value / 65536) % 256}.${Math.floor(value / 256) % 256}.${value % 256}`;
}

/** `%` and `_` of a LIKE pattern taken literally. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

type Row = Record<string, number | string>;

export class AuditStore {
  private readonly db: Database.Database;
  private readonly insertUrl: Database.Statement;
  private readonly insertFlow: Database.Statement;
  private readonly addBatch: (urls: readonly UrlRecord[], flows: readonly FlowRecord[]) => void;

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    this.db = new Database(file);
    // Set before the first table exists, so deleted pages can be handed back to the disk.
    this.db.pragma('auto_vacuum = INCREMENTAL');
    this.db.pragma('journal_mode = WAL');
    // Records, not configuration: the last second may be lost at a power cut.
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    this.insertUrl = this.db.prepare('INSERT INTO url (ts, client, server, port, kind, host, path) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.insertFlow = this.db.prepare('INSERT INTO flow (ts, client, cport, server, port, proto) VALUES (?, ?, ?, ?, ?, ?)');
    this.addBatch = this.db.transaction((urls: readonly UrlRecord[], flows: readonly FlowRecord[]) => {
      for (const r of urls) {
        const client = ipToInt(r.client);
        const server = ipToInt(r.server);
        if (client === null || server === null) continue;
        this.insertUrl.run(r.ts, client, server, r.port, URL_KINDS.indexOf(r.kind), r.host, r.path);
      }
      for (const r of flows) {
        const client = ipToInt(r.client);
        const server = ipToInt(r.server);
        const proto = Number(Object.entries(FLOW_PROTOS).find(([, name]) => name === r.proto)?.[0] ?? -1);
        if (client === null || server === null || proto < 0) continue;
        this.insertFlow.run(r.ts, client, r.cport, server, r.port, proto);
      }
    });
  }

  add(urls: readonly UrlRecord[], flows: readonly FlowRecord[]): void {
    if (urls.length || flows.length) this.addBatch(urls, flows);
  }

  private where(table: 'url' | 'flow', query: AuditQuery): { sql: string; params: Array<number | string> } {
    const clauses: string[] = [];
    const params: Array<number | string> = [];
    if (query.client !== undefined) {
      clauses.push('client = ?');
      params.push(ipToInt(query.client) ?? -1);
    }
    clauses.push('ts >= ?', 'ts <= ?');
    params.push(query.from, query.to);
    const text = query.text?.trim();
    if (text) {
      if (table === 'url') {
        clauses.push("(host LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\')");
        params.push(likePattern(text.toLowerCase()), likePattern(text));
      } else {
        const address = ipToInt(text);
        clauses.push(address !== null ? 'server = ?' : 'port = ?');
        params.push(address ?? (/^\d{1,5}$/.test(text) ? Number(text) : -1));
      }
    }
    return { sql: clauses.join(' AND '), params };
  }

  private urlOf = (row: Row): UrlRecord => ({
    ts: row.ts as number,
    client: intToIp(row.client as number),
    server: intToIp(row.server as number),
    port: row.port as number,
    kind: URL_KINDS[row.kind as number] ?? 'http',
    host: row.host as string,
    path: row.path as string,
  });

  private flowOf = (row: Row): FlowRecord => ({
    ts: row.ts as number,
    client: intToIp(row.client as number),
    cport: row.cport as number,
    server: intToIp(row.server as number),
    port: row.port as number,
    proto: FLOW_PROTOS[row.proto as keyof typeof FLOW_PROTOS] ?? String(row.proto),
  });

  /** One page, newest first, and how many records the query holds. */
  urls(query: AuditQuery): { items: UrlRecord[]; total: number } {
    return this.page('url', query, this.urlOf);
  }

  flows(query: AuditQuery): { items: FlowRecord[]; total: number } {
    return this.page('flow', query, this.flowOf);
  }

  private page<T>(table: 'url' | 'flow', query: AuditQuery, map: (row: Row) => T): { items: T[]; total: number } {
    const { sql, params } = this.where(table, query);
    const rows = this.db.prepare(`SELECT * FROM ${table} WHERE ${sql} ORDER BY ts DESC LIMIT ? OFFSET ?`).all(...params, query.limit, query.offset) as Row[];
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${sql}`).get(...params) as { n: number }).n;
    return { items: rows.map(map), total };
  }

  /** Every record of a query, oldest first, up to `max` (an export is streamed, never held whole). */
  *exportUrls(query: Omit<AuditQuery, 'offset' | 'limit'>, max: number): Generator<UrlRecord> {
    const { sql, params } = this.where('url', { ...query, offset: 0, limit: max });
    for (const row of this.db.prepare(`SELECT * FROM url WHERE ${sql} ORDER BY ts LIMIT ?`).iterate(...params, max)) yield this.urlOf(row as Row);
  }

  *exportFlows(query: Omit<AuditQuery, 'offset' | 'limit'>, max: number): Generator<FlowRecord> {
    const { sql, params } = this.where('flow', { ...query, offset: 0, limit: max });
    for (const row of this.db.prepare(`SELECT * FROM flow WHERE ${sql} ORDER BY ts LIMIT ?`).iterate(...params, max)) yield this.flowOf(row as Row);
  }

  /** Oldest record time of either table, or null when there is none. */
  oldest(): number | null {
    const row = this.db.prepare('SELECT MIN(ts) AS ts FROM (SELECT MIN(ts) AS ts FROM url UNION ALL SELECT MIN(ts) AS ts FROM flow)').get() as { ts: number | null };
    return row.ts;
  }

  counts(): { urls: number; flows: number } {
    const n = (table: string) => (this.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { urls: n('url'), flows: n('flow') };
  }

  /** Removes every record older than `ts`; gives the freed pages back to the disk. */
  deleteBefore(ts: number): number {
    const removed = this.db.prepare('DELETE FROM url WHERE ts < ?').run(ts).changes + this.db.prepare('DELETE FROM flow WHERE ts < ?').run(ts).changes;
    if (removed > 0) this.db.pragma('incremental_vacuum');
    return removed;
  }

  clear(): void {
    this.db.exec('DELETE FROM url; DELETE FROM flow;');
    this.db.pragma('incremental_vacuum');
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
