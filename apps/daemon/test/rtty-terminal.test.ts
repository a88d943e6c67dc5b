import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { WebSocket } from 'ws';
import { CSRF_PROTOCOL_PREFIX, TERMINAL_PROTOCOL, type TerminalEnded } from '@portico/schema';
import { buildPty } from '../pty-build.mjs';
import { decodeLogLine } from '../src/config/log-book.js';
import { addAccount, adminClient, CONDITION_WAIT, get, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

/*
 * The browser terminal against the real PTY helper: the upgrade passes the same guard as every
 * request, the program runs on a real PTY, and every session is journalled. The program is
 * /bin/sh here (PORTICO_RTTY_COMMAND) instead of the device's /bin/login.
 */

let h: Harness;
let admin: Client;
let visitor: Client;
let base: string;

beforeAll(async () => {
  expect(await buildPty(), 'a C compiler builds portico-pty').not.toBeNull();
  h = await startDaemon({ env: { PORTICO_RTTY_COMMAND: '/bin/sh -i' } });
  admin = await adminClient(h);
  const guest = await addAccount(h, admin, 'visitor', 2);
  visitor = await login(h.app, 'visitor', guest.password);
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await h?.close();
});

interface Opened {
  ws: WebSocket;
  output: () => string;
  ended: Promise<TerminalEnded>;
}

interface Upgrade {
  /** null: no token offered; default: the client's own. */
  csrf?: string | null;
  origin?: string;
  /** host:port of the daemon; default: the one of this file. */
  address?: string;
}

/** Asks for the terminal as a browser would: the session cookie, its Origin, the token as a subprotocol. */
function socketOf(client: Client | null, options: Upgrade = {}): WebSocket {
  const address = options.address ?? base;
  const csrf = options.csrf === undefined ? client?.csrf : options.csrf;
  const protocols = [TERMINAL_PROTOCOL, ...(csrf ? [`${CSRF_PROTOCOL_PREFIX}${csrf}`] : [])];
  return new WebSocket(`ws://${address}/api/sysconf/rtty`, protocols, {
    headers: { origin: options.origin ?? `http://${address}`, ...(client ? { cookie: client.cookie } : {}) },
  });
}

function connect(client: Client | null, options: Upgrade = {}): Promise<Opened> {
  const ws = socketOf(client, options);
  let text = '';
  const ended = new Promise<TerminalEnded>((resolve) => {
    ws.on('message', (data, isBinary) => {
      if (isBinary) text += data.toString();
      else resolve(JSON.parse(data.toString()) as TerminalEnded);
    });
  });
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve({ ws, output: () => text, ended }));
    ws.on('unexpected-response', (_request, response) => reject(new Error(`refused with ${response.statusCode}`)));
    ws.on('error', reject);
  });
}

/** The refusal an upgrade gets instead of a handshake: its status and JSON body. */
function refusal(client: Client | null, options: Upgrade = {}): Promise<{ status: number; body: unknown }> {
  const ws = socketOf(client, options);
  return new Promise((resolve, reject) => {
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(body) }));
    });
    ws.on('error', () => undefined);
  });
}

function authLog(): Array<{ key?: string; values?: Record<string, string | number> }> {
  return h.app.appContext.logs
    .files('auth')
    .flatMap((file) => readFileSync(file, 'utf8').split('\n'))
    .map(decodeLogLine)
    .filter((entry) => entry !== null);
}

/** Still running: a killed process left unreaped (a zombie, its parent gone) counts as ended. */
function alive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

/** Types a command and waits for the marker it prints; answers what came after the typing. */
async function run(terminal: Opened, command: string, marker: string): Promise<string> {
  const before = terminal.output().length;
  terminal.ws.send(Buffer.from(`${command}; echo ${marker.slice(0, 3)}''${marker.slice(3)}\n`));
  await vi.waitFor(() => expect(terminal.output().slice(before)).toContain(marker), CONDITION_WAIT);
  return terminal.output().slice(before);
}

describe('who may open the terminal', () => {
  test('without a session the upgrade is refused', async () => {
    expect(await refusal(null)).toEqual({ status: 401, body: { success: false, msg: 'unauthorized' } });
  });

  test('without the CSRF token, or with a wrong one, the upgrade is refused', async () => {
    expect(await refusal(admin, { csrf: null })).toEqual({ status: 403, body: { success: false, msg: 'msg.csrf' } });
    expect(await refusal(admin, { csrf: 'x'.repeat(43) })).toEqual({ status: 403, body: { success: false, msg: 'msg.csrf' } });
  });

  test('from another site the upgrade is refused', async () => {
    expect(await refusal(admin, { origin: 'http://evil.example' })).toEqual({ status: 403, body: { success: false, msg: 'msg.csrf' } });
  });

  test('a visitor (read-only) reads the status but may not open a terminal', async () => {
    const status = json(await get(h.app, visitor, '/api/sysconf/rtty'));
    expect(status).toEqual({ success: true, data: { available: true, open: 0, max: 4, idleSeconds: 900, permitted: false } });
    expect(await refusal(visitor)).toEqual({ status: 200, body: { success: false, msg: 'forbidden' } });
    expect(json(await get(h.app, admin, '/api/sysconf/rtty')).data.permitted).toBe(true);
  });
});

describe("an administrator's terminal", () => {
  test('runs the program on a PTY: input echoes, a resize reaches it, the exit status is passed on', async () => {
    const terminal = await connect(admin);
    expect(terminal.ws.protocol).toBe(TERMINAL_PROTOCOL);
    expect(await run(terminal, 'echo typed-$((6*7))', 'DONE1')).toContain('typed-42');
    expect(await run(terminal, 'stty size', 'DONE2')).toMatch(/24 80/);
    // The program does not inherit the daemon's environment (vitest's own variable stands for it).
    expect(process.env.VITEST).toBeTruthy();
    expect(await run(terminal, 'echo "env=[${VITEST:-}]"', 'DONE7')).toContain('env=[]');
    terminal.ws.send(JSON.stringify({ type: 'resize', rows: 33, cols: 101 }));
    await vi.waitFor(async () => expect(await run(terminal, 'stty size', `SZ${Math.random().toString(36).slice(2, 8)}`)).toMatch(/33 101/), CONDITION_WAIT);
    // A malformed or oversized resize is ignored, the terminal goes on.
    terminal.ws.send(JSON.stringify({ type: 'resize', rows: 0, cols: 99999 }));
    terminal.ws.send('not json');
    expect(await run(terminal, 'stty size', 'DONE3')).toMatch(/33 101/);
    terminal.ws.send(Buffer.from('exit 7\n'));
    expect(await terminal.ended).toEqual({ type: 'ended', reason: 'exited', status: 7 });
    await vi.waitFor(() => expect(terminal.ws.readyState).toBe(WebSocket.CLOSED), CONDITION_WAIT);

    const entries = authLog().filter((entry) => entry.key?.startsWith('logs.auth.terminal'));
    const opened = entries.find((entry) => entry.key === 'logs.auth.terminalOpened');
    expect(opened?.values).toMatchObject({ user: 'admin', address: '127.0.0.1' });
    const ended = entries.find((entry) => entry.key === 'logs.auth.terminalEnded' && entry.values?.terminal === opened?.values?.terminal);
    expect(ended?.values).toMatchObject({ user: 'admin', address: '127.0.0.1', status: 7, reasonKey: 'logs.terminalEnd.exited' });
  });

  test('closing the socket kills the program and everything it started', async () => {
    const terminal = await connect(admin);
    const shell = Number(/PID=(\d+)/.exec(await run(terminal, 'echo PID=$$', 'DONE4'))?.[1]);
    const sleeper = Number(/BG=(\d+)/.exec(await run(terminal, 'sleep 600 & echo BG=$!', 'DONE5'))?.[1]);
    expect(alive(shell) && alive(sleeper)).toBe(true);
    terminal.ws.close();
    await vi.waitFor(() => expect([alive(shell), alive(sleeper)]).toEqual([false, false]), CONDITION_WAIT);
    await vi.waitFor(() => expect(authLog().some((entry) => entry.key === 'logs.auth.terminalEnded' && entry.values?.reasonKey === 'logs.terminalEnd.closed')).toBe(true), CONDITION_WAIT);
    await vi.waitFor(async () => expect(json(await get(h.app, admin, '/api/sysconf/rtty')).data.open).toBe(0), CONDITION_WAIT);
  });

  test('signing out ends the terminal of that session', async () => {
    const other = await login(h.app, 'admin', 'Admin2025pass');
    const terminal = await connect(other);
    const shell = Number(/PID=(\d+)/.exec(await run(terminal, 'echo PID=$$', 'DONE6'))?.[1]);
    expect(json(await post(h.app, other, '/api/logout')).success).toBe(true);
    expect((await terminal.ended).reason).toBe('signedOut');
    await vi.waitFor(() => expect(alive(shell)).toBe(false), CONDITION_WAIT);
  });

  test('at most four terminals run at once', async () => {
    const open = await Promise.all([0, 1, 2, 3].map(() => connect(admin)));
    expect(await refusal(admin)).toEqual({ status: 200, body: { success: false, msg: 'msg.rtty.busy' } });
    for (const terminal of open) terminal.ws.close();
    await vi.waitFor(async () => expect(json(await get(h.app, admin, '/api/sysconf/rtty')).data.open).toBe(0), CONDITION_WAIT);
  });
});

describe('the console session behind a terminal', () => {
  // Last on this daemon: it moves the clock past every session's idle time.
  test('input keeps it alive; once it has expired, the next input ends the terminal', async () => {
    const owner = await login(h.app, 'admin', 'Admin2025pass');
    const terminal = await connect(owner);
    await run(terminal, 'echo one', 'DONE8');
    h.clock.advance(1000);
    await run(terminal, 'echo two', 'DONE9');
    // 2000 s after sign-in, past the 1800 s idle time, but 1000 s after the last input.
    h.clock.advance(1000);
    await run(terminal, 'echo three', 'DONE10');
    h.clock.advance(1801);
    terminal.ws.send(Buffer.from('echo four\n'));
    expect((await terminal.ended).reason).toBe('signedOut');
  });
});

describe('an idle terminal', () => {
  test('is closed after the idle time, and journalled so', async () => {
    const idle = await startDaemon({ env: { PORTICO_RTTY_COMMAND: '/bin/sh -i' }, deps: { rtty: { idleMs: 300 } } });
    try {
      const owner = await adminClient(idle);
      await idle.app.listen({ host: '127.0.0.1', port: 0 });
      const address = `127.0.0.1:${(idle.app.server.address() as AddressInfo).port}`;
      const terminal = await connect(owner, { address });
      expect((await terminal.ended).reason).toBe('idle');
      const log = idle.app.appContext.logs.files('auth').flatMap((file) => readFileSync(file, 'utf8').split('\n')).map(decodeLogLine);
      expect(log.some((entry) => entry?.key === 'logs.auth.terminalEnded' && entry.values?.reasonKey === 'logs.terminalEnd.idle')).toBe(true);
    } finally {
      await idle.close();
    }
  });
});
