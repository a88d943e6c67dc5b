import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLab, inNs, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';

/**
 * Apply with rollback for real: the built daemon runs in the gateway namespace with the linux
 * driver and a factory LAN; the administrator is a LAN client. A change that moves the LAN
 * address cuts the administrator off; unconfirmed, it is put back within the deadline + 5 s,
 * also when the daemon is restarted inside the window.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const REPO = resolve(import.meta.dirname, '../..');
const CONFIRM_SECONDS = 10;
const GW = 'http://192.168.11.1:8080';

let lab: Lab;
let stateDir: string;
let root: string;
let daemon: ChildProcess | undefined;
let cookie = '';
let csrf = '';

function startDaemon(): ChildProcess {
  const child = spawn('ip', ['netns', 'exec', lab.gw, process.execPath, join(REPO, 'apps/daemon/dist/main.mjs')], {
    env: {
      ...process.env,
      PORTICO_DRIVER: 'linux',
      PORTICO_STATE_DIR: stateDir,
      PORTICO_SYSTEM_ROOT: root,
      PORTICO_PORT: '8080',
      PORTICO_HOST: '0.0.0.0',
      PORTICO_LAN_PORTS: 'lanp1 lanp2',
      PORTICO_CONFIRM_SECONDS: String(CONFIRM_SECONDS),
      PORTICO_LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  return child;
}

async function stopDaemon(signal: NodeJS.Signals): Promise<void> {
  const child = daemon;
  daemon = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

/** One HTTP request made from the administrator's LAN client. */
function http(method: string, path: string, body?: unknown, timeoutMs = 4000): { status: number; json?: any } {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (cookie) headers.cookie = cookie;
  if (csrf) headers['x-csrf-token'] = csrf;
  const result = inNs(lab.clients[0]!.ns, [process.execPath, join(REPO, 'tests/lab/lab-http-client.mjs')], {
    input: JSON.stringify({ method, url: `${GW}${path}`, headers, body, timeoutMs }),
    allowFail: true,
    timeoutMs: 8000,
  });
  const answer = JSON.parse(result.stdout || '{"status":0}') as { status: number; body?: string; setCookie?: string[] };
  for (const c of answer.setCookie ?? []) if (c.includes('_sid=')) cookie = c.split(';')[0]!;
  return { status: answer.status, json: answer.body ? JSON.parse(answer.body) : undefined };
}

function lanAddress(): string {
  return inNs(lab.gw, ['ip', '-4', '-br', 'addr', 'show', 'br-lan'], { allowFail: true }).stdout;
}

async function until(check: () => boolean, seconds: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > seconds * 1000) throw new Error(`not within ${seconds} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return (Date.now() - started) / 1000;
}

async function moveLan(): Promise<void> {
  const list = http('GET', `/api/network?_=${Date.now()}`).json;
  const lan = list.data.items.find((i: { ifname: string }) => i.ifname === 'lan');
  // The answer is lost with the address it was sent to: do not wait long for it.
  const reply = http('POST', '/api/network', { action: 'update', id: lan.id, ipaddr: '192.168.12.1' }, 1500);
  if (reply.status === 200) expect(reply.json.data.confirm.seconds).toBe(CONFIRM_SECONDS);
  await until(() => lanAddress().includes('192.168.12.1/24'), 3);
}

beforeAll(async () => {
  lab = createLab({ clients: 2 });
  stateDir = mkdtempSync(join(tmpdir(), 'portico-lab-state-'));
  root = mkdtempSync(join(tmpdir(), 'portico-lab-root-'));
  daemon = startDaemon();
  await until(() => lanAddress().includes('192.168.11.1/24'), 20);
  const client = lab.clients[0]!;
  inNs(client.ns, ['ip', 'addr', 'add', '192.168.11.50/24', 'dev', client.ifname]);
  await until(() => http('GET', '/api/changelang').status === 200, 20);
  const initial = readFileSync(join(stateDir, 'initial-admin-password'), 'utf8').trim();
  const login = http('POST', '/api/login', { username: 'admin', password: initial }).json;
  csrf = login.data.csrf;
  const changed = http('POST', '/api/changepwd', { oldpassword: initial, password: 'LabPassw0rd', confirm: 'LabPassw0rd' }).json;
  expect(changed.success).toBe(true);
  csrf = changed.data.csrf;
}, 60_000);

afterAll(async () => {
  await stopDaemon('SIGTERM');
  lab?.down();
  for (const dir of [stateDir, root]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('apply with rollback on the linux driver', () => {
  test('the factory LAN serves the console to a LAN client', () => {
    expect(http('GET', '/api/islogin').json.data.username).toBe('admin');
  });

  test('an unconfirmed change that cuts the administrator off is reverted within the deadline + 5 s', async () => {
    await moveLan();
    expect(http('GET', '/api/islogin', undefined, 1000).status).toBe(0); // cut off: the old address is gone
    const waited = await until(() => lanAddress().includes('192.168.11.1/24'), CONFIRM_SECONDS + 5);
    expect(waited).toBeLessThanOrEqual(CONFIRM_SECONDS + 5);
    expect(lanAddress()).not.toContain('192.168.12.1');
    await until(() => http('GET', '/api/islogin').status === 200, 5);
  });

  test('it is reverted too when the daemon is killed and restarted inside the window', async () => {
    await moveLan();
    const movedAt = Date.now();
    await stopDaemon('SIGKILL');
    daemon = startDaemon();
    await until(() => lanAddress().includes('192.168.11.1/24'), CONFIRM_SECONDS + 15);
    expect((Date.now() - movedAt) / 1000).toBeLessThanOrEqual(CONFIRM_SECONDS + 5 + 3);
    await until(() => http('GET', '/api/islogin').status === 200, 10);
    expect(http('GET', '/api/islogin').json.data.username).toBe('admin');
  });
});
