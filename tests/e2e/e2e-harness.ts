import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from '../../apps/daemon/launch-flags.mjs';

export const REPO = resolve(import.meta.dirname, '../..');
const DAEMON = join(REPO, 'apps/daemon/dist/main.mjs');
const CHROMIUM = process.env.PORTICO_CHROMIUM ?? '/usr/bin/chromium';

export interface RunningDaemon {
  url: string;
  /** The captive portal's listener (PORTICO_PORTAL_PORT), as a client on loopback reaches it. */
  portalUrl: string;
  stateDir: string;
  initialPassword: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** A TCP port nothing listens on now, for a server a test starts. */
export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts the built daemon on loopback with a fresh state dir; resolves once it listens. */
export async function startDaemon(env: Record<string, string> = {}): Promise<RunningDaemon> {
  const stateDir = mkdtempSync(join(tmpdir(), 'portico-e2e-'));
  const port = await freePort();
  const portalPort = await freePort();
  const wirelessPort = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...DAEMON_NODE_FLAGS, DAEMON], {
    env: {
      ...process.env,
      ...DAEMON_ENV,
      PORTICO_STATE_DIR: stateDir,
      PORTICO_PORT: String(port),
      // The captive portal's own listener: a free port too, so runs never collide.
      PORTICO_PORTAL_PORT: String(portalPort),
      PORTICO_WIRELESS_PORT: String(wirelessPort),
      PORTICO_HOST: '127.0.0.1',
      PORTICO_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  // A bound for a daemon that never listens; on a loaded machine a start can take many seconds.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`daemon exited ${child.exitCode}:\n${output}`);
    try {
      const reply = await fetch(`${url}/api/changelang`);
      if (reply.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`daemon did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const initialPassword = readFileSync(join(stateDir, 'initial-admin-password'), 'utf8').trim();
  return {
    url,
    portalUrl: `http://127.0.0.1:${env.PORTICO_PORTAL_PORT ?? portalPort}`,
    stateDir,
    initialPassword,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function newPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  return { context, page };
}

/** A tiny API client for test set-up: keeps the session cookie and CSRF token. */
export class ApiSession {
  private cookie = '';
  csrf = '';
  constructor(private readonly base: string) {}

  /** The session cookie as a request header carries it (for a WebSocket upgrade). */
  cookieHeader(): string {
    return this.cookie;
  }

  async login(username: string, password: string): Promise<Record<string, unknown>> {
    const reply = await this.post('login', { username, password });
    if (reply.success) this.csrf = String((reply.data as { csrf: string }).csrf);
    return reply;
  }

  async get(path: string): Promise<Record<string, unknown>> {
    // A path may carry its own query; the cache-buster joins it.
    const res = await fetch(`${this.base}/api/${path}${path.includes('?') ? '&' : '?'}_=${Date.now()}`, { headers: { cookie: this.cookie } });
    return (await res.json()) as Record<string, unknown>;
  }

  async post(path: string, body: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.base}/api/${path}?_=${Date.now()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: this.cookie, 'x-csrf-token': this.csrf },
      body: JSON.stringify(body),
    });
    const setCookie = res.headers.getSetCookie();
    for (const c of setCookie) {
      const pair = c.split(';')[0]!;
      if (pair.includes('_sid=')) this.cookie = pair;
    }
    return (await res.json()) as Record<string, unknown>;
  }

  /** A multipart upload (fields, then files, as the console's forms send them). */
  async postForm(path: string, form: FormData): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.base}/api/${path}?_=${Date.now()}`, { method: 'POST', headers: { cookie: this.cookie, 'x-csrf-token': this.csrf }, body: form });
    return (await res.json()) as Record<string, unknown>;
  }
}

/** Logs in with the initial password and sets `password`: the state every other test starts from. */
export async function adminWithPassword(daemon: RunningDaemon, password: string): Promise<ApiSession> {
  const api = new ApiSession(daemon.url);
  const first = await api.login('admin', daemon.initialPassword);
  if (!first.success) throw new Error(`initial login failed: ${JSON.stringify(first)}`);
  const changed = await api.post('changepwd', {
    oldpassword: daemon.initialPassword,
    password,
    confirm: password,
  });
  if (!changed.success) throw new Error(`password change failed: ${JSON.stringify(changed)}`);
  api.csrf = String((changed.data as { csrf: string }).csrf);
  return api;
}

export async function loginInBrowser(page: Page, base: string, username: string, password: string) {
  await page.goto(`${base}/login`);
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
}

/**
 * The built daemon as its first start leaves it (nobody has signed in yet) and Chromium, shared
 * by the tests of one file: started before them, stopped after them.
 */
export function freshDaemonFixture(env: Record<string, string> = {}): { readonly daemon: RunningDaemon; readonly browser: Browser } {
  const fixture = {} as { daemon: RunningDaemon; browser: Browser };
  beforeAll(async () => {
    [fixture.daemon, fixture.browser] = await Promise.all([startDaemon(env), launchBrowser()]);
  });
  afterAll(async () => {
    await fixture.browser?.close();
    await fixture.daemon?.stop();
  });
  return fixture;
}

/** freshDaemonFixture (with extra settings `env`) and an admin API session whose password is changed to `password`. */
export function consoleFixture(password = 'AdminPassw0rd', env: Record<string, string> = {}): { readonly daemon: RunningDaemon; readonly browser: Browser; readonly api: ApiSession } {
  const fixture = freshDaemonFixture(env) as { daemon: RunningDaemon; browser: Browser; api: ApiSession };
  beforeAll(async () => {
    fixture.api = await adminWithPassword(fixture.daemon, password);
  });
  return fixture;
}
