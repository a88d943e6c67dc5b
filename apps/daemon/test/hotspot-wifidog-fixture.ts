// A WiFiDog auth server on loopback that follows the protocol: it issues tokens, answers
// `auth/?stage=login|counters|logout` with `Auth: <n>` and `ping/` with `Pong`, and records every
// call. A test can make it answer anything instead (`override`), or go silent (`down`).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseWifidogSection, type WifidogConfig } from '../src/domains/hotspot/wifidog/wifidog-redirect.js';

export interface RecordedCall {
  path: string;
  query: Record<string, string>;
  /** Names of the query parameters in the order they came, repeats included. */
  names: string[];
}

export interface RawAnswer {
  status?: number;
  headers?: Record<string, string>;
  body: string | Buffer;
}

export class WifidogTestServer {
  readonly calls: RecordedCall[] = [];
  /** Token -> the code `stage=login` and `stage=counters` answer for it. */
  readonly tokens = new Map<string, number>();
  /** When true every connection is dropped unanswered: the server is down. */
  down = false;
  /** When set, answers every call in place of the protocol. */
  override: ((call: RecordedCall) => RawAnswer) | null = null;
  /** When true, calls are recorded and never answered. */
  hang = false;
  private server: Server | null = null;
  private hanging: ServerResponse[] = [];
  port = 0;

  async start(): Promise<void> {
    const server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const res of this.hanging.splice(0)) res.destroy();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The gateway's configuration for this server, through the same validation as the device's. */
  config(section: Record<string, unknown> = {}): WifidogConfig {
    return parseWifidogSection({ server: '127.0.0.1', port: this.port, ...section });
  }

  /** A fresh token the server will answer `code` for (1: allowed). */
  issueToken(code = 1): string {
    const token = randomBytes(16).toString('hex');
    this.tokens.set(token, code);
    return token;
  }

  callsTo(stage: string): RecordedCall[] {
    return this.calls.filter((c) => c.query.stage === stage);
  }

  pings(): RecordedCall[] {
    return this.calls.filter((c) => c.path.endsWith('/ping/'));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    if (this.down) {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const call: RecordedCall = {
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      names: [...url.searchParams.keys()],
    };
    this.calls.push(call);
    if (this.hang) {
      this.hanging.push(res);
      return;
    }
    const answer = this.override ? this.override(call) : this.protocol(call);
    res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain', ...answer.headers });
    res.end(answer.body);
  }

  private protocol(call: RecordedCall): RawAnswer {
    if (call.path === '/wifidog/ping/') return { body: 'Pong\n' };
    if (call.path !== '/wifidog/auth/') return { status: 404, body: 'not found' };
    const code = this.tokens.get(call.query.token ?? '') ?? 0;
    if (call.query.stage === 'logout') {
      this.tokens.delete(call.query.token ?? '');
      return { body: 'Auth: 0\n' };
    }
    return { body: `Auth: ${code}\nMessages: stage ${call.query.stage}\n` };
  }
}
