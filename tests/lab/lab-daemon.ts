import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inNs, type Lab } from './lab-topology.js';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from '../../apps/daemon/launch-flags.mjs';

const REPO = resolve(import.meta.dirname, '../..');
export const GATEWAY_URL = 'http://192.168.11.1:8080';

export async function until(check: () => boolean, seconds: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > seconds * 1000) throw new Error(`not within ${seconds} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return (Date.now() - started) / 1000;
}

/**
 * The built daemon in the lab's gateway namespace with the linux driver and a factory LAN on
 * the client ports; the administrator talks to it from the first client namespace, like a
 * real one on the LAN.
 */
export class LabDaemon {
  readonly stateDir = mkdtempSync(join(tmpdir(), 'portico-lab-state-'));
  readonly root = mkdtempSync(join(tmpdir(), 'portico-lab-root-'));
  private child: ChildProcess | undefined;
  private cookie = '';
  private csrf = '';

  constructor(
    private readonly lab: Lab,
    private readonly env: Record<string, string> = {},
  ) {}

  start(): void {
    this.child = spawn('ip', ['netns', 'exec', this.lab.gw, process.execPath, ...DAEMON_NODE_FLAGS, join(REPO, 'apps/daemon/dist/main.mjs')], {
      env: {
        ...process.env,
        ...DAEMON_ENV,
        PORTICO_DRIVER: 'linux',
        PORTICO_STATE_DIR: this.stateDir,
        PORTICO_SYSTEM_ROOT: this.root,
        PORTICO_PORT: '8080',
        PORTICO_HOST: '0.0.0.0',
        PORTICO_LAN_PORTS: this.lab.clients.map((_, i) => `lanp${i + 1}`).join(' '),
        PORTICO_LOG_LEVEL: 'warn',
        ...this.env,
      },
      // PORTICO_LAB_DAEMON_LOG=<file> keeps the daemon's log of a run for reading after a failure.
      stdio: process.env.PORTICO_LAB_DAEMON_LOG ? ['ignore', openSync(process.env.PORTICO_LAB_DAEMON_LOG, 'a'), openSync(process.env.PORTICO_LAB_DAEMON_LOG, 'a')] : 'ignore',
    });
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }

  /** One HTTP request from the administrator's LAN client; status 0 when nothing answered. */
  http(method: string, path: string, body?: unknown, timeoutMs = 4000): { status: number; json?: any; text: string } {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.cookie) headers.cookie = this.cookie;
    if (this.csrf) headers['x-csrf-token'] = this.csrf;
    const result = inNs(this.lab.clients[0]!.ns, [process.execPath, join(REPO, 'tests/lab/lab-http-client.mjs')], {
      input: JSON.stringify({ method, url: `${GATEWAY_URL}${path}`, headers, body, timeoutMs }),
      allowFail: true,
      timeoutMs: timeoutMs + 4000,
    });
    const answer = JSON.parse(result.stdout || '{"status":0}') as { status: number; body?: string; setCookie?: string[] };
    for (const c of answer.setCookie ?? []) if (c.includes('_sid=')) this.cookie = c.split(';')[0]!;
    // Downloads (profiles, archives) are not JSON: their text is the answer.
    let parsed: unknown;
    try {
      parsed = answer.body ? JSON.parse(answer.body) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: answer.status, json: parsed, text: answer.body ?? '' };
  }

  /** An administrator's write that must succeed; a change that waits for its confirmation is confirmed. Its data. */
  write(path: string, body: Record<string, unknown>, timeoutMs = 60_000): any {
    const reply = this.http('POST', path, body, timeoutMs).json;
    if (!reply?.success) throw new Error(`${path}: ${JSON.stringify(reply)}`);
    const token = reply.data?.confirm?.token;
    if (token && !this.http('POST', '/api/sysconf/confirm', { token }).json?.success) throw new Error(`${path}: not confirmed`);
    return reply.data;
  }

  /** Sends a request from the admin client without waiting for any answer. */
  fire(method: string, path: string, body?: unknown): void {
    const headers: Record<string, string> = { 'content-type': 'application/json', cookie: this.cookie, 'x-csrf-token': this.csrf };
    const child = spawn('ip', ['netns', 'exec', this.lab.clients[0]!.ns, process.execPath, join(REPO, 'tests/lab/lab-http-client.mjs')], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.stdin!.end(JSON.stringify({ method, url: `${GATEWAY_URL}${path}`, headers, body, timeoutMs: 3000 }));
  }

  lanAddress(): string {
    return inNs(this.lab.gw, ['ip', '-4', '-br', 'addr', 'show', 'br-lan'], { allowFail: true }).stdout;
  }

  /** Starts the daemon, waits for the factory LAN, addresses the admin client and signs in. */
  async bootAndSignIn(password = 'LabPassw0rd'): Promise<void> {
    this.start();
    await until(() => this.lanAddress().includes('192.168.11.1/24'), 20);
    const client = this.lab.clients[0]!;
    inNs(client.ns, ['ip', 'addr', 'replace', '192.168.11.50/24', 'dev', client.ifname]);
    await until(() => this.http('GET', '/api/changelang').status === 200, 20);
    const initial = readFileSync(join(this.stateDir, 'initial-admin-password'), 'utf8').trim();
    const login = this.http('POST', '/api/login', { username: 'admin', password: initial }).json;
    this.csrf = login.data.csrf;
    const changed = this.http('POST', '/api/changepwd', { oldpassword: initial, password, confirm: password }).json;
    if (!changed?.success) throw new Error(`password change failed: ${JSON.stringify(changed)}`);
    this.csrf = changed.data.csrf;
  }

  async dispose(): Promise<void> {
    await this.stop();
    for (const dir of [this.stateDir, this.root]) rmSync(dir, { recursive: true, force: true });
  }
}
