import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, REPO } from './e2e-harness.js';

/*
 * The built captive portal (apps/portal/dist) served the way the gateway serves it: index.html
 * for every public route, assets under /portal-assets/, a strict Content-Security-Policy (no
 * inline scripts or styles), and a fake /portal-api that keeps its state in memory.
 */

const DIST = join(REPO, 'apps/portal/dist');
const BUDGET_GZIP_BYTES = 80 * 1024;
const PUBLIC_ROUTES = new Set([
  '/', '/auth', '/auth/portal', '/auth/success', '/notice', '/notice/expired', '/notice/local',
  '/terminal', '/terminal/user', '/terminal/user/login', '/terminal/user/register', '/terminal/user/cpwd',
  '/terminal/user/mgrsuc', '/terminal/user/mgr', '/user', '/user/login', '/user/register', '/user/cpwd',
  '/user/mgrsuc', '/user/mgr',
]);
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'";
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html; charset=utf-8', '.png': 'image/png' };

interface FakeGateway {
  /** Set: /portal-api/state fails with this message (e.g. no service zone covers the client). */
  stateFailure?: string;
  authorized: boolean;
  secondsRemaining: number | null;
  welcome: string;
  users: Map<string, string>;
  sessions: Set<string>;
  loginBodies: Array<Record<string, unknown>>;
}

let gateway: FakeGateway;
let server: Server;
let base: string;
let browser: Browser;

function resetGateway(): void {
  gateway = {
    authorized: false,
    secondsRemaining: 7200,
    welcome: 'Welcome to Harbour Cafe',
    users: new Map([['alice', 'abcd1234']]),
    sessions: new Set(),
    loginBodies: [],
  };
}

function send(res: ServerResponse, status: number, body: string | Buffer, type: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': type, 'content-security-policy': CSP, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}) =>
  send(res, 200, JSON.stringify(body), 'application/json', headers);
const ok = (data: unknown = {}) => ({ success: true, data });
const fail = (msg: string, errors?: Record<string, string>) => ({ success: false, msg, ...(errors ? { errors } : {}) });

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  try {
    const value = JSON.parse(text || '{}') as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function sessionUser(req: IncomingMessage): string | undefined {
  const sid = /(?:^|;\s*)portal_sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
  return sid && gateway.sessions.has(sid) ? sid.split('.')[0] : undefined;
}

const account = (username: string) => ({ username, plan: 'Monthly', duetime: '', totalflow: 10737418240, usedflow: 1073741824, usernum: 1 });

async function api(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const route = `${req.method} ${path}`;
  const body = req.method === 'POST' ? await readBody(req) : {};
  switch (route) {
    case 'GET state':
      if (gateway.stateFailure) return json(res, fail(gateway.stateFailure));
      return json(res, ok({
        authorized: gateway.authorized,
        zone: {
          welcome: gateway.welcome,
          contact: 'Front desk',
          copyright: '© Harbour Cafe',
          logintext: 'Buy a voucher at the counter, or use the access password.',
          chargetext: '1 hour: 5 coins',
          tos: 'Use this network lawfully.\nWe may log connection times.',
          methods: ['voucher', 'password', 'local', 'onekey'],
          logo: 'javascript:alert(1)',
        },
        ...(gateway.authorized ? { session: { secondsRemaining: gateway.secondsRemaining, bytesRemaining: 524288000, plan: 'Hour pass' } } : {}),
      }));
    case 'POST login': {
      gateway.loginBodies.push(body);
      if (body.acceptTerms !== true) return json(res, fail('portal.error.system', { acceptTerms: 'validation.required' }));
      if (body.method !== 'voucher') return json(res, fail('portal.error.system'));
      if (body.code !== 'CAFE2024') return json(res, fail('portal.error.code'));
      gateway.authorized = true;
      return json(res, ok({ secondsRemaining: gateway.secondsRemaining, bytesRemaining: 524288000 }));
    }
    case 'POST logout':
      gateway.authorized = false;
      return json(res, ok({}));
    case 'GET notice/expired':
      return json(res, ok({ content: 'Your pass has ended.', renewUrl: 'http://shop.example/renew' }));
    case 'GET notice/local':
      return json(res, ok({ content: 'The cafe closes at 22:00.' }));
    case 'POST user/register': {
      const username = String(body.username ?? '');
      if (gateway.users.has(username)) return json(res, fail('portal.error.userExists'));
      gateway.users.set(username, String(body.password ?? ''));
      return json(res, ok({}));
    }
    case 'POST user/login': {
      const username = String(body.username ?? '');
      if (gateway.users.get(username) !== body.password) return json(res, fail('portal.error.userOrPassword'));
      const sid = `${username}.${Math.random().toString(36).slice(2)}`;
      gateway.sessions.add(sid);
      return json(res, ok(account(username)), { 'set-cookie': `portal_sid=${sid}; Path=/; HttpOnly; SameSite=Strict` });
    }
    case 'GET user/me': {
      const user = sessionUser(req);
      return json(res, user ? ok(account(user)) : fail('portal.error.userOrPassword'));
    }
    case 'POST user/cpwd': {
      const user = sessionUser(req);
      if (!user || gateway.users.get(user) !== body.oldPassword) return json(res, fail('portal.error.password'));
      gateway.users.set(user, String(body.newPassword));
      return json(res, ok({}));
    }
    case 'POST user/logout':
      return json(res, ok({}), { 'set-cookie': 'portal_sid=; Path=/; Max-Age=0' });
    default:
      return send(res, 404, 'not found', 'text/plain');
  }
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://portal.test');
  if (url.pathname.startsWith('/portal-api/')) return api(req, res, url.pathname.slice('/portal-api/'.length));
  if (url.pathname.startsWith('/portal-assets/')) {
    const file = normalize(join(DIST, url.pathname.slice('/portal-assets/'.length)));
    if (!file.startsWith(DIST + '/') || !existsSync(file) || !statSync(file).isFile()) return send(res, 404, 'not found', 'text/plain');
    return send(res, 200, readFileSync(file), TYPES[extname(file)] ?? 'application/octet-stream');
  }
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  if (PUBLIC_ROUTES.has(path)) return send(res, 200, readFileSync(join(DIST, 'index.html')), TYPES['.html']!);
  return send(res, 302, '', 'text/plain', { location: `/auth/portal?url=${encodeURIComponent(`http://portal.test${url.pathname}`)}` });
}

interface Visit {
  context: BrowserContext;
  page: Page;
  /** CSP violations, page errors and dialogs: each is a failure. */
  problems: string[];
}

async function visit(locale: string, viewport = { width: 360, height: 640 }): Promise<Visit> {
  const context = await browser.newContext({ locale, viewport, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { context, page, problems };
}

function distFiles(dir = DIST): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === '.vite') return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? distFiles(path) : [path];
  });
}

beforeAll(async () => {
  if (!existsSync(join(DIST, 'index.html'))) throw new Error('apps/portal/dist is missing: build the portal first (npm run build)');
  resetGateway();
  server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, String(error), 'text/plain'));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((done) => server?.close(done));
});

beforeEach(() => resetGateway());

describe('portal bundle', () => {
  test('all assets together stay within 80 KB gzipped; index.html has no inline script or style', () => {
    const assets = distFiles().filter((file) => !/\.(gz|br)$/.test(file));
    const total = assets.reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length, 0);
    expect(total).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
    const html = readFileSync(join(DIST, 'index.html'), 'utf8');
    for (const script of html.match(/<script\b[^>]*>[\s\S]*?<\/script>/g) ?? []) expect(script).toMatch(/^<script\b[^>]*\bsrc="\/portal-assets\/[^"]+"[^>]*><\/script>$/);
    expect(html).not.toMatch(/<style\b|\sstyle=/);
  });
});

describe('captive portal in a browser', () => {
  test('voucher login in Chinese: terms required, wrong code, success with countdown, logout', async () => {
    const { context, page, problems } = await visit('zh-CN');
    try {
      await page.goto(`${base}/some/page`);
      await page.waitForURL('**/auth/portal?url=*');
      await expect.poll(() => page.getByTestId('auth-tab-voucher').textContent()).toBe('上网券');
      expect(await page.getByTestId('zone-welcome').textContent()).toBe('Welcome to Harbour Cafe');
      expect(await page.locator('img').count()).toBe(0);

      await page.getByLabel('上网券码').fill('WRONG');
      await page.getByTestId('auth-submit').click();
      await expect.poll(() => page.getByTestId('field-acceptTerms-error').textContent()).toBe('请先同意服务条款。');
      expect(gateway.loginBodies).toHaveLength(0);

      // The terms open over the form as a sheet; accepting there ticks the box.
      await page.getByRole('link', { name: '服务条款' }).click();
      const terms = page.getByRole('dialog', { name: '服务条款' });
      await expect.poll(() => terms.textContent()).toContain('We may log connection times.');
      await terms.getByRole('button', { name: '同意' }).click();
      await expect.poll(() => terms.count()).toBe(0);
      expect(await page.getByLabel('我已阅读并同意《服务条款》').isChecked()).toBe(true);
      expect(await page.getByLabel('上网券码').inputValue()).toBe('WRONG');
      await page.getByTestId('auth-submit').click();
      await expect.poll(() => page.getByTestId('form-error').textContent()).toBe('上网券码错误。');

      await page.getByLabel('上网券码').fill('CAFE2024');
      await page.getByTestId('auth-submit').click();
      await page.waitForURL('**/auth/success?url=*');
      await expect.poll(() => page.getByTestId('session-bytes').textContent()).toBe('500.0 MB');
      // The time left counts down each second: how far it got depends on how busy the machine is.
      const first = await page.getByTestId('session-time').textContent();
      expect(first).toMatch(/^(2小时|1小时5\d分钟\d{1,2}秒)$/);
      await expect.poll(() => page.getByTestId('session-time').textContent()).not.toBe(first);
      expect(await page.getByTestId('session-time').textContent()).toMatch(/^1小时5\d分钟\d{1,2}秒$/);
      expect(await page.getByTestId('session-continue').getAttribute('href')).toBe('http://portal.test/some/page');

      await page.getByTestId('session-logout').click();
      await expect.poll(() => page.getByTestId('auth-logged-out').textContent()).toContain('本设备已断开连接。');
      expect(gateway.authorized).toBe(false);
      expect(await context.cookies()).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('hostile zone text shows as text; a narrow phone screen does not scroll sideways', async () => {
    gateway.welcome = '<img src=x onerror=alert(1)><script>alert(2)</script>' + 'W'.repeat(200);
    const { context, page, problems } = await visit('en-US', { width: 320, height: 568 });
    try {
      await page.goto(`${base}/auth/portal`);
      await expect.poll(() => page.getByTestId('zone-welcome').textContent()).toBe(gateway.welcome);
      expect(await page.locator('main img, main script').count()).toBe(0);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const submit = await page.getByTestId('auth-submit').boundingBox();
      expect(submit?.height).toBeGreaterThanOrEqual(44);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('a device no service zone covers gets a page that says so, not a system error', async () => {
    gateway.stateFailure = 'portal.error.notConfigured';
    const { context, page, problems } = await visit('en-US', { width: 390, height: 844 });
    try {
      await page.goto(`${base}/auth/portal`);
      const panel = page.getByTestId('portal-unavailable');
      await expect.poll(() => panel.getByRole('heading').textContent()).toBe('Sign-in is not available here');
      expect(await panel.getByRole('alert').textContent()).toBe('Sign-in is not set up for the network this device is on. Please ask the staff for help.');
      expect(await page.getByText('System error').count()).toBe(0);
      gateway.stateFailure = undefined;
      await panel.getByRole('button', { name: 'Try again' }).click();
      await expect.poll(() => page.getByTestId('zone-welcome').textContent()).toBe('Welcome to Harbour Cafe');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('the language switch changes the page and is kept across a reload', async () => {
    const { context, page, problems } = await visit('en-US');
    try {
      await page.goto(`${base}/notice/local`);
      await expect.poll(() => page.getByTestId('notice-content').textContent()).toBe('The cafe closes at 22:00.');
      expect(await page.locator('h1').textContent()).toBe('Notice');
      await page.getByLabel('Language').selectOption('zh-TW');
      await expect.poll(() => page.locator('h1').textContent()).toBe('通知');
      await page.reload();
      await expect.poll(() => page.locator('h1').textContent()).toBe('通知');
      expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-TW');
      await page.goto(`${base}/notice/expired`);
      await expect.poll(() => page.getByTestId('notice-renew').getAttribute('href')).toBe('http://shop.example/renew');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('self-service: register, sign in (cookie), account page, change password, sign out', async () => {
    const { context, page, problems } = await visit('zh-TW');
    try {
      await page.goto(`${base}/terminal/user/register`);
      await page.getByLabel('使用者名稱').fill('alice');
      await page.getByLabel('密碼', { exact: true }).fill('abcd1234');
      await page.getByLabel('再次輸入密碼').fill('abcd1234');
      await page.getByTestId('user-register-submit').click();
      await expect.poll(() => page.getByTestId('form-error').textContent()).toBe('使用者名稱或前綴已存在。');

      await page.getByLabel('使用者名稱').fill('bob');
      await page.getByTestId('user-register-submit').click();
      await page.waitForURL('**/terminal/user/mgrsuc?done=register');
      await page.getByRole('link', { name: '登入' }).click();
      await page.waitForURL('**/terminal/user/login');

      await page.getByLabel('使用者名稱').fill('bob');
      await page.getByLabel('密碼').fill('nope12345');
      await page.getByTestId('user-login-submit').click();
      await expect.poll(() => page.getByTestId('form-error').textContent()).toBe('使用者名稱或密碼錯誤。');
      await page.getByLabel('密碼').fill('abcd1234');
      await page.getByTestId('user-login-submit').click();
      await page.waitForURL('**/terminal/user/mgr');
      await expect.poll(() => page.getByTestId('account-remainingflow').textContent()).toBe('9.0 GB');
      const cookies = await context.cookies();
      expect(cookies.map((c) => [c.name, c.httpOnly])).toEqual([['portal_sid', true]]);

      await page.reload();
      await expect.poll(() => page.getByTestId('account-username').textContent()).toBe('bob');
      await page.getByTestId('account-cpwd').click();
      await page.getByLabel('目前密碼').fill('abcd1234');
      await page.getByLabel('新密碼').fill('efgh5678');
      await page.getByLabel('再次輸入密碼').fill('efgh5678');
      await page.getByTestId('user-cpwd-submit').click();
      await page.waitForURL('**/terminal/user/mgrsuc?done=cpwd');
      expect(gateway.users.get('bob')).toBe('efgh5678');

      await page.goto(`${base}/terminal/user/mgr`);
      await page.getByTestId('account-logout').click();
      await page.waitForURL('**/terminal/user/login');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
