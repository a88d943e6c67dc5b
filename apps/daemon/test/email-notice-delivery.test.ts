import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { mailResources } from '@portico/i18n/mail';
import type { HealthEvent } from '@portico/schema';
import { ADMIN_PASSWORD, adminClient, CONDITION_WAIT, get, json, login, post, startDaemon, tempDir, type Client, type Harness } from './daemon-harness.js';
import { decodeWords, freePort, parseMail, startSmtpServer, testCertificate, type SmtpServer } from './email-smtp-fixture.js';
import { runCommand, type CommandRunner } from '../src/engine/command-runner.js';
import type { Scheduler } from '../src/config/config-types.js';
import { SECURITY_EVENT_RECORDED } from '../src/domains/health/health-public.js';
import { EMAIL_RETRY_MS } from '../src/domains/email-notice/email-notice-service.js';

/**
 * E-mail notices delivered for real: curl (the daemon's SMTP client) against an SMTP server on
 * loopback that the test starts, with STARTTLS or TLS from the start, AUTH PLAIN or LOGIN, and a
 * certificate made here. The server is taken down and brought back to see the queue wait, survive
 * a restart and deliver.
 */

const USER = 'notices';
const PASSWORD = 'S3cret "pass" \\ word';
const SETTINGS = '/api/sysconf/emailinfo';
const RECIPIENTS = '/api/sysconf/emailinfo/recipients';
const TEST = '/api/sysconf/emailinfo/test';
const STATUS = '/api/sysconf/emailinfo/status';

let certDir: string;
let cert: ReturnType<typeof testCertificate>;
/** Every argv curl was run with, to check no secret was on a command line. */
const argvs: string[][] = [];
const spyRun: CommandRunner = async (argv, options) => {
  argvs.push([...argv]);
  return runCommand(argv, options);
};

function event(kind: HealthEvent['kind'], extra: Partial<HealthEvent> = {}): HealthEvent {
  return { id: 1, time: Date.UTC(2026, 10, 27, 8, 30, 0), kind, interface: 'lan', port: '', ip: '192.168.11.7', mac: '02:66:66:66:66:66', otherMac: '', ...extra };
}

// curl is the daemon's SMTP client; `npm test` installs it where it can (scripts/project-steps.mjs).
const HAS_CURL = existsSync('/usr/bin/curl');

beforeAll(() => {
  if (!HAS_CURL) return;
  certDir = tempDir('portico-smtp-');
  cert = testCertificate(certDir);
});

describe.skipIf(!HAS_CURL)('delivery through curl to a loopback SMTP server', () => {
  let h: Harness;
  let admin: Client;
  const servers: SmtpServer[] = [];
  beforeAll(async () => {
    h = await startDaemon({ deps: { 'email-notice': { run: spyRun, caFile: cert.certFile, device: () => 'gw-test' } } });
    admin = await adminClient(h);
  });
  afterAll(async () => {
    await h.close();
    for (const s of servers) await s.close();
  });

  async function save(body: Record<string, unknown>) {
    return json(await post(h.app, admin, SETTINGS, { enabled: true, server: '127.0.0.1', verify: true, sender: 'gateway@example.com', language: 'en-US', ...body }));
  }

  test('STARTTLS with AUTH PLAIN: the test button delivers, the password never reaches argv', async () => {
    const server = await startSmtpServer({ mode: 'starttls', tls: cert, auth: { mechanisms: ['PLAIN'], user: USER, password: PASSWORD } });
    servers.push(server);
    expect((await save({ port: server.port, security: 'starttls', user: USER, password: PASSWORD })).success).toBe(true);
    // The password is write-only.
    const read = json(await get(h.app, admin, `${SETTINGS}?_=1`));
    expect(read.data.password).toBeUndefined();
    expect(read.data.user).toBe(USER);

    const reply = json(await post(h.app, admin, TEST, { action: 'test', address: 'admin@example.org' }));
    expect(reply).toEqual({ success: true, data: { delivered: true, error: '' } });
    expect(server.mails).toHaveLength(1);
    const mail = server.mails[0]!;
    expect(mail).toMatchObject({ from: 'gateway@example.com', to: ['admin@example.org'], tls: true, mechanism: 'PLAIN', user: USER });
    // STARTTLS came before the credentials.
    expect(server.commands.findIndex((c) => c === 'STARTTLS')).toBeLessThan(server.commands.findIndex((c) => c.startsWith('AUTH')));
    const { headers, body } = parseMail(mail.data);
    expect(decodeWords(headers.get('subject')!)).toBe('[gw-test] Test message');
    expect(headers.get('from')).toBe('gateway@example.com');
    expect(headers.get('to')).toBe('admin@example.org');
    expect(headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    expect(headers.get('message-id')).toMatch(/^<[a-z0-9]+\.[0-9a-f]{24}@gw-test>$/);
    expect(headers.get('date')).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000$/);
    expect(body).toContain('gw-test');
    for (const argv of argvs) expect(argv.join(' ')).not.toContain('S3cret');
    expect(argvs.at(-1)).toContain('--ssl-reqd');
    // The credential file is gone once curl is done.
    expect(readdirSync(join(h.stateDir, 'email'))).toEqual([]);
  });

  test('TLS from the start with AUTH LOGIN: an event reaches a recipient in their language', async () => {
    const server = await startSmtpServer({ mode: 'tls', tls: cert, auth: { mechanisms: ['LOGIN'], user: USER, password: PASSWORD } });
    servers.push(server);
    expect((await save({ port: server.port, security: 'tls', user: USER, password: '' })).success).toBe(true);
    const add = (body: Record<string, unknown>) => post(h.app, admin, RECIPIENTS, { action: 'add', enabled: true, ...body });
    expect(json(await add({ name: '值班', address: 'duty@example.org', events: ['ipConflict', 'loop'], language: 'zh-CN' })).success).toBe(true);
    expect(json(await add({ name: 'Ops', address: 'ops@example.org', events: ['dhcpServer'], language: 'device' })).success).toBe(true);
    expect(json(await add({ name: 'Off', address: 'off@example.org', events: ['ipConflict'], enabled: false })).success).toBe(true);

    h.app.appContext.signals.emit(SECURITY_EVENT_RECORDED, event('ipConflict', { otherMac: '02:bb:00:00:00:02' }));
    await vi.waitFor(() => expect(server.mails).toHaveLength(1), CONDITION_WAIT);
    const mail = server.mails[0]!;
    expect(mail).toMatchObject({ to: ['duty@example.org'], tls: true, mechanism: 'LOGIN' });
    const { headers, body } = parseMail(mail.data);
    expect(headers.get('content-language')).toBe('zh-CN');
    expect(decodeWords(headers.get('subject')!)).toBe('[gw-test] lan 上发生 IP 地址冲突');
    expect(body).toContain('192.168.11.7');
    expect(body).toContain('02:bb:00:00:00:02');
    expect(body).toContain(mailResources['zh-CN'].footer.split('\n')[2]!);

    h.app.appContext.signals.emit(SECURITY_EVENT_RECORDED, event('dhcpServer'));
    await vi.waitFor(() => expect(server.mails).toHaveLength(2), CONDITION_WAIT);
    expect(server.mails[1]!.to).toEqual(['ops@example.org']);
    expect(decodeWords(parseMail(server.mails[1]!.data).headers.get('subject')!)).toBe('[gw-test] Another DHCP server on lan');

    await vi.waitFor(async () => {
      const status = json(await get(h.app, admin, `${STATUS}?_=1`)).data;
      expect(status).toMatchObject({ waiting: 0, sent: 2 });
      expect(status.results[0]).toMatchObject({ key: 'logs.email.sent', values: { event: 'dhcpServer', address: 'ops@example.org' } });
    }, CONDITION_WAIT);
  });

  test('the page hears the server refuse: wrong password, unknown recipient, untrusted certificate', async () => {
    const server = await startSmtpServer({ mode: 'starttls', tls: cert, auth: { mechanisms: ['PLAIN', 'LOGIN'], user: USER, password: PASSWORD } });
    servers.push(server);
    expect((await save({ port: server.port, security: 'starttls', user: USER, password: 'wrong-password' })).success).toBe(true);
    let reply = json(await post(h.app, admin, TEST, { address: 'admin@example.org' }));
    expect(reply.success).toBe(true);
    expect(reply.data.delivered).toBe(false);
    expect(reply.data.error).toMatch(/login denied/i);

    expect((await save({ port: server.port, security: 'starttls', user: USER, password: PASSWORD })).success).toBe(true);
    reply = json(await post(h.app, admin, TEST, { address: 'nobody@example.org' }));
    expect(reply.data.delivered).toBe(false);
    expect(reply.data.error).toMatch(/550/);
    expect(server.mails).toHaveLength(0);
  });

  test('without the test CA the self-signed certificate is refused unless verification is off', async () => {
    const other = await startDaemon({ deps: { 'email-notice': { run: runCommand } } });
    try {
      const client = await adminClient(other);
      const server = await startSmtpServer({ mode: 'tls', tls: cert });
      servers.push(server);
      const write = (verify: boolean) => post(other.app, client, SETTINGS, { enabled: true, server: '127.0.0.1', port: server.port, security: 'tls', verify, sender: 'gateway@example.com' });
      expect(json(await write(true)).success).toBe(true);
      let reply = json(await post(other.app, client, TEST, { address: 'admin@example.org' }));
      expect(reply.data.delivered).toBe(false);
      expect(reply.data.error).toMatch(/certificate/i);
      expect(json(await write(false)).success).toBe(true);
      reply = json(await post(other.app, client, TEST, { address: 'admin@example.org' }));
      expect(reply.data).toEqual({ delivered: true, error: '' });
    } finally {
      await other.close();
    }
  });

  test('the test refuses a hostile address on its field, and answers off when not configured', async () => {
    const reply = json(await post(h.app, admin, TEST, { address: 'a@example.org\r\nBcc: victim@example.org' }));
    expect(reply).toMatchObject({ success: false, errors: { address: 'validation.text.control' } });
    expect(json(await post(h.app, admin, SETTINGS, { enabled: false })).success).toBe(true);
    expect(json(await post(h.app, admin, TEST, { address: 'admin@example.org' }))).toMatchObject({ success: false, msg: 'msg.email.off' });
  });
});

describe.skipIf(!HAS_CURL)('the queue while the server is down', () => {
  /** Scheduled work, fired by the test: the retry waits are never waited out. */
  const pending: Array<{ ms: number; work: () => void }> = [];
  const schedule: Scheduler = (ms, work) => {
    const item = { ms, work };
    pending.push(item);
    return () => {
      const at = pending.indexOf(item);
      if (at >= 0) pending.splice(at, 1);
    };
  };
  const fire = () => {
    for (const item of pending.splice(0)) item.work();
  };

  test('waits with growing back-off, survives a restart, and delivers once the server is back', async () => {
    const port = await freePort();
    const deps = { 'email-notice': { run: runCommand, schedule, device: () => 'gw-test', timeoutSeconds: 5 } };
    let h = await startDaemon({ deps });
    let admin = await adminClient(h);
    expect(json(await post(h.app, admin, SETTINGS, { enabled: true, server: '127.0.0.1', port, security: 'none', sender: 'gateway@example.com' })).success).toBe(true);
    expect(json(await post(h.app, admin, RECIPIENTS, { action: 'add', name: 'Ops', address: 'ops@example.org', events: ['loop'] })).success).toBe(true);
    const status = async () => json(await get(h.app, admin, `${STATUS}?_=1`)).data;

    h.app.appContext.signals.emit(SECURITY_EVENT_RECORDED, event('loop', { port: 'lanp2' }));
    // Attempt 1: nothing listens, the pass ends with a retry wait of the first step.
    fire();
    await vi.waitFor(async () => expect(await status()).toMatchObject({ waiting: 1, sent: 0 }), CONDITION_WAIT);
    await vi.waitFor(() => expect(pending.map((p) => p.ms)).toEqual([EMAIL_RETRY_MS[0]]), CONDITION_WAIT);
    const first = await status();
    expect(first.lastError).toMatch(/connect/i);
    expect(first.results[0]).toMatchObject({ key: 'logs.email.failed', values: { event: 'loop', address: 'ops@example.org', attempt: 1 } });
    // Attempt 2: still down, the wait grows.
    fire();
    await vi.waitFor(() => expect(pending.map((p) => p.ms)).toEqual([EMAIL_RETRY_MS[1]]), CONDITION_WAIT);
    // A notice for a recipient deleted before it went out is never sent.
    const added = json(await post(h.app, admin, RECIPIENTS, { action: 'add', name: 'Temp', address: 'temp@example.org', events: ['loop'] }));
    h.app.appContext.signals.emit(SECURITY_EVENT_RECORDED, event('loop', { port: 'lanp3' }));
    expect(json(await post(h.app, admin, RECIPIENTS, { action: 'delete', id: added.data.id })).success).toBe(true);
    // Ops and Temp's copy of the second event, and Ops' copy of the first.
    expect((await status()).waiting).toBe(3);

    // A restart: the messages are still in the queue.
    pending.splice(0);
    h = await h.restart();
    admin = await login(h.app, 'admin', ADMIN_PASSWORD);
    expect((await status()).waiting).toBe(3);

    const server = await startSmtpServer({ mode: 'plain', port });
    try {
      // The start's pass finds the server back.
      fire();
      await vi.waitFor(() => expect(server.mails).toHaveLength(2), CONDITION_WAIT);
      expect(server.mails.map((m) => m.to)).toEqual([['ops@example.org'], ['ops@example.org']]);
      expect(decodeWords(parseMail(server.mails[0]!.data).headers.get('subject')!)).toBe('[gw-test] Network loop on lan');
      // Oldest first.
      expect(parseMail(server.mails[0]!.data).body).toContain('lanp2');
      expect(parseMail(server.mails[1]!.data).body).toContain('lanp3');
      await vi.waitFor(async () => expect(await status()).toMatchObject({ waiting: 0, sent: 2, givenUp: 1, retryAt: null }), CONDITION_WAIT);
    } finally {
      await server.close();
      await h.close();
    }
  });
});
