import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp, type AppDeps } from '../src/app.js';
import { createScryptHasher, type PasswordHasher } from '../src/plugins/password-hash.js';
import { readSettings, type Settings } from '../src/settings.js';
import type { CommandResult, CommandRunner } from '../src/engine/command-runner.js';

/** A clock tests move by hand. */
/**
 * How long a test waits for a condition (vi.waitFor): long, since the suite may run on a
 * loaded 2-core machine. A condition that holds ends the wait at once; only a failure waits it out.
 */
export const CONDITION_WAIT = { timeout: 30_000, interval: 20 };

export class TestClock {
  constructor(public ms = Date.UTC(2025, 2, 1, 12, 0, 0)) {}
  now = () => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/** Real scrypt at a low cost (fast tests), counting every verification. */
export class CountingHasher implements PasswordHasher {
  verifications = 0;
  hashes = 0;
  private readonly inner = createScryptHasher(10);
  async hash(password: string): Promise<string> {
    this.hashes++;
    return this.inner.hash(password);
  }
  async verify(password: string, stored: string): Promise<boolean> {
    this.verifications++;
    return this.inner.verify(password, stored);
  }
}

export interface Harness {
  app: FastifyInstance;
  settings: Settings;
  clock: TestClock;
  hasher: CountingHasher;
  stateDir: string;
  announced: string[];
  /** The generated admin password, when this start created the account. */
  initialPassword?: string;
  /** Builds a second app over the same state folder (a daemon restart). */
  restart(): Promise<Harness>;
  close(): Promise<void>;
}

const createdDirs: string[] = [];
// Every folder made through tempDir() goes when the test file is done.
afterAll(() => {
  for (const dir of createdDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(prefix = 'portico-daemon-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  createdDirs.push(dir);
  return dir;
}

/** A command runner that records every argv and answers `answer` (success by default). */
export function recordingRunner(answer: CommandResult = { exitCode: 0, stdout: '', stderr: '' }): { run: CommandRunner; commands: string[][] } {
  const commands: string[][] = [];
  const run: CommandRunner = async (argv) => {
    commands.push([...argv]);
    return answer;
  };
  return { run, commands };
}

export async function startDaemon(
  options: {
    /** Settings from the environment; `undefined` leaves a setting at its default. */
    env?: Record<string, string | undefined>;
    stateDir?: string;
    clock?: TestClock;
    hasher?: CountingHasher;
    deps?: AppDeps;
    /** Registers extra routes on the built app before it starts. */
    beforeReady?: (app: FastifyInstance) => void;
  } = {},
): Promise<Harness> {
  const stateDir = options.stateDir ?? tempDir();
  const clock = options.clock ?? new TestClock();
  const hasher = options.hasher ?? new CountingHasher();
  const settings = readSettings({
    PORTICO_STATE_DIR: stateDir,
    PORTICO_LOG_LEVEL: 'silent',
    PORTICO_CONSOLE_DIR: join(stateDir, 'no-console'),
    PORTICO_PORTAL_DIR: join(stateDir, 'no-portal'),
    // Tests build their network from nothing unless they ask for the factory one.
    PORTICO_LAN_PORTS: '',
    PORTICO_WAN_PORTS: '',
    ...options.env,
  });
  const announced: string[] = [];
  const app = await buildApp(settings, { now: clock.now, passwords: hasher, announce: (line) => announced.push(line), ...options.deps });
  options.beforeReady?.(app);
  await app.ready();
  const initialPassword = /Initial admin password: (\S+)/.exec(announced[0] ?? '')?.[1];
  const harness: Harness = {
    app,
    settings,
    clock,
    hasher,
    stateDir,
    announced,
    initialPassword,
    async restart() {
      await app.close();
      return startDaemon({ ...options, stateDir, clock, hasher });
    },
    async close() {
      await app.close();
      if (!options.stateDir) rmSync(stateDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** A signed-in browser: its cookie jar entry and CSRF token. */
export interface Client {
  cookie: string;
  csrf: string;
  username: string;
  ip: string;
}

export function json<T = any>(res: LightMyRequestResponse): T {
  return res.json() as T;
}

export async function login(app: FastifyInstance, username: string, password: string, ip = '127.0.0.1'): Promise<Client> {
  const res = await app.inject({ method: 'POST', url: '/api/login', payload: { username, password }, remoteAddress: ip });
  const body = json(res);
  if (!body.success) throw new Error(`login ${username} failed: ${JSON.stringify(body)}`);
  const sid = res.cookies.find((c) => c.name === 'portico_sid');
  return { cookie: `portico_sid=${sid!.value}`, csrf: body.data.csrf, username, ip };
}

export function get(app: FastifyInstance, client: Client | null, url: string, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'GET',
    url,
    headers: { ...(client ? { cookie: client.cookie } : {}), ...headers },
    remoteAddress: client?.ip ?? '127.0.0.1',
  });
}

export function post(app: FastifyInstance, client: Client | null, url: string, payload: unknown = {}, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url,
    payload: payload as Record<string, unknown>,
    headers: { ...(client ? { cookie: client.cookie, 'x-csrf-token': client.csrf } : {}), ...headers },
    remoteAddress: client?.ip ?? '127.0.0.1',
  });
}

export const ADMIN_PASSWORD = 'Admin2025pass';

/** Signs in the built-in admin and replaces the generated password, as a first start does. */
export async function adminClient(h: Harness): Promise<Client> {
  const first = await login(h.app, 'admin', h.initialPassword!);
  const res = await post(h.app, first, '/api/changepwd', { oldpassword: h.initialPassword, password: ADMIN_PASSWORD, confirm: ADMIN_PASSWORD });
  const body = json(res);
  if (!body.success) throw new Error(`changepwd failed: ${JSON.stringify(body)}`);
  const sid = res.cookies.find((c) => c.name === 'portico_sid')!;
  return { cookie: `portico_sid=${sid.value}`, csrf: body.data.csrf, username: 'admin', ip: first.ip };
}

/**
 * Writes one row through its entity route and confirms the change when the write asks for it
 * (a change that could cut the administrator off); returns the row's id.
 */
export async function writeConfirmed(h: Harness, admin: Client, entity: { path: string }, body: Record<string, unknown>): Promise<string> {
  const reply = json(await post(h.app, admin, `/api/${entity.path}`, body));
  if (!reply.success) throw new Error(`write refused: ${JSON.stringify(reply)}`);
  if (reply.data?.confirm) {
    const confirmed = json(await post(h.app, null, '/api/sysconf/confirm', { token: reply.data.confirm.token }));
    if (!confirmed.success) throw new Error(`confirmation refused: ${JSON.stringify(confirmed)}`);
  }
  return reply.data?.id as string;
}

/** Adds an account through the API and signs it in. */
export async function addAccount(
  h: Harness,
  admin: Client,
  username: string,
  privilege: 0 | 1 | 2,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; password: string }> {
  const password = `${username}Pass123`;
  const res = await post(h.app, admin, '/api/admin', { action: 'add', username, password, confirm: password, privilege, ...extra });
  const body = json(res);
  if (!body.success) throw new Error(`add ${username} failed: ${JSON.stringify(body)}`);
  return { id: body.data.id, password };
}
