import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { emailRecipient, emailServer, fieldErrors, isEmailAddress, writeSchema, type EmailServer } from '@portico/schema';
import { tempDir } from './daemon-harness.js';
import { decodeWords, parseMail } from './email-smtp-fixture.js';
import { composeMessage, encodeWords, MessageRefused, noticeText, rfc5322Date } from '../src/domains/email-notice/email-notice-message.js';
import { curlArguments, SmtpTransport } from '../src/domains/email-notice/email-notice-smtp.js';
import { MailQueue, EMAIL_MIGRATIONS } from '../src/domains/email-notice/email-notice-queue.js';
import { migrate, migrateModule, openDatabase } from '../src/plugins/db-open.js';
import { SignalBus, signal } from '../src/config/domain-signals.js';
import { HealthEventStore, HEALTH_MIGRATIONS } from '../src/domains/health/health-events.js';
import type { CommandRunner } from '../src/engine/command-runner.js';

const AT = Date.UTC(2026, 10, 27, 8, 5, 9);

describe('composition (RFC 5322, RFC 2047)', () => {
  const base = { from: 'gateway@example.com', to: 'ops@example.org', subject: 'Hi', body: 'line 1\nline 2\n', language: 'en-US' as const, date: AT, idDomain: 'gw-1' };

  test('headers, a base64 UTF-8 body and CRLF line ends', () => {
    const text = composeMessage({ ...base, subject: '[gw-1] 网络环路 on lan', body: '检测到网络环路。\nSecond line' });
    expect(text.split('\r\n').every((line) => !line.includes('\n') && !line.includes('\r'))).toBe(true);
    const { headers, body } = parseMail(text);
    expect(headers.get('from')).toBe('gateway@example.com');
    expect(headers.get('to')).toBe('ops@example.org');
    expect(decodeWords(headers.get('subject')!)).toBe('[gw-1] 网络环路 on lan');
    expect(headers.get('date')).toBe('Fri, 27 Nov 2026 08:05:09 +0000');
    expect(headers.get('message-id')).toMatch(/^<[a-z0-9]+\.[0-9a-f]{24}@gw-1>$/);
    expect(headers.get('mime-version')).toBe('1.0');
    expect(headers.get('content-transfer-encoding')).toBe('base64');
    expect(headers.get('auto-submitted')).toBe('auto-generated');
    expect(body).toBe('检测到网络环路。\r\nSecond line');
    // Body lines stay within 76 characters.
    expect(text.split('\r\n\r\n')[1]!.split('\r\n').every((line) => line.length <= 76)).toBe(true);
  });

  test('two messages never share a Message-ID; a hostile id domain falls back', () => {
    const a = parseMail(composeMessage(base)).headers.get('message-id');
    const b = parseMail(composeMessage(base)).headers.get('message-id');
    expect(a).not.toBe(b);
    expect(parseMail(composeMessage({ ...base, idDomain: 'x>\r\nBcc: a@b.c' })).headers.get('message-id')).toMatch(/@portico\.invalid>$/);
  });

  test('encoded words stay within 75 characters and never split a character', () => {
    const text = '安全事件：'.repeat(20) + '😀 end';
    const words = encodeWords(text);
    expect(words.length).toBeGreaterThan(1);
    for (const word of words) {
      expect(word.length).toBeLessThanOrEqual(75);
      expect(Buffer.from(word.slice(10, -2), 'base64').toString('utf8')).not.toContain('\ufffd');
    }
    expect(decodeWords(words.join(' '))).toBe(text);
  });

  test('header injection is refused, not cleaned', () => {
    for (const to of ['ops@example.org\r\nBcc: victim@example.org', 'ops@example.org, victim@example.org', 'Ops <ops@example.org>', 'ops@example.org\n']) {
      expect(() => composeMessage({ ...base, to })).toThrow(MessageRefused);
    }
    expect(() => composeMessage({ ...base, from: 'a@b.c\rX-Evil: 1' })).toThrow(MessageRefused);
    expect(() => composeMessage({ ...base, subject: 'Hi\r\nBcc: victim@example.org' })).toThrow(MessageRefused);
  });

  test('notice texts in each language, values on one line', () => {
    const values = { device: 'gw-1', interface: 'lan\r\nBcc: x', ip: '192.168.11.9', mac: '02:00:00:00:00:09', otherMac: '', port: '', time: '2026-11-27 08:05:09 UTC' };
    expect(noticeText('dhcpServer', 'en-US', values).subject).toBe('[gw-1] Another DHCP server on lan  Bcc: x');
    expect(noticeText('dhcpServer', 'zh-TW', values).subject).toContain('其他 DHCP 伺服器');
    expect(noticeText('ipConflict', 'zh-CN', values).body).toContain('192.168.11.9');
    expect(rfc5322Date(Date.UTC(2027, 0, 3, 23, 59, 1))).toBe('Sun, 03 Jan 2027 23:59:01 +0000');
  });
});

describe('validation of the settings and recipients', () => {
  const errorsOf = (schema: ReturnType<typeof writeSchema>, value: unknown) => {
    const result = schema.safeParse(value);
    return result.success ? {} : fieldErrors(result.error);
  };

  test('e-mail addresses', () => {
    for (const good of ['a@example.com', 'first.last+tag@mail.example.org', "o'brien@example.ie"]) expect(isEmailAddress(good)).toBe(true);
    for (const bad of ['', 'a', '@example.com', 'a@', 'a@localhost', 'a b@example.com', 'a@example.com\r\n', '"a"@example.com', 'a..b@example.com', '.a@example.com', 'a@exa mple.com', 'Ops <a@example.com>', 'a@example.com,b@example.com', `${'a'.repeat(65)}@example.com`, 'ü@example.com']) {
      expect(isEmailAddress(bad), bad).toBe(false);
    }
  });

  test('server settings: errors land on their fields', () => {
    const update = writeSchema(emailServer as never, 'update');
    expect(errorsOf(update, { enabled: true, server: '', port: 587, security: 'starttls', verify: true, user: '', password: '', sender: '', language: 'en-US' })).toEqual({ server: 'validation.required', sender: 'validation.required' });
    expect(errorsOf(update, { enabled: true, server: 'smtp.example.com', port: 70000, security: 'starttls', verify: true, user: '', password: '', sender: 'a@example.com', language: 'en-US' })).toMatchObject({ port: expect.stringMatching(/^validation\./) });
    expect(errorsOf(update, { enabled: true, server: 'smtp.example.com', port: 25, security: 'none', verify: true, user: 'u', password: 'p', sender: 'a@example.com', language: 'en-US' })).toEqual({ security: 'validation.email.plainAuth' });
    expect(errorsOf(update, { enabled: true, server: 'smtp.example.com\r\n', port: 25, security: 'ssl', verify: true, user: 'u\n', password: '', sender: 'a@b', language: 'fr' })).toMatchObject({
      server: 'validation.text.control',
      security: 'validation.option',
      user: 'validation.text.control',
      sender: 'validation.email.address',
      language: 'validation.option',
    });
  });

  test('recipients: at least one known event, each once; a valid address', () => {
    const add = writeSchema(emailRecipient as never, 'add');
    expect(errorsOf(add, { name: 'Ops', address: 'ops@example.org', events: [] })).toEqual({ events: 'validation.email.events' });
    expect(errorsOf(add, { name: 'Ops', address: 'ops@example.org', events: ['loop', 'loop'] })).toEqual({ events: 'validation.email.events' });
    expect(errorsOf(add, { name: 'Ops', address: 'ops@example.org', events: ['reboot'] })).toEqual({ events: 'validation.option' });
    expect(errorsOf(add, { name: 'Ops', address: 'ops@example.org\r\nBcc: x@y.z', events: ['loop'] })).toEqual({ address: 'validation.text.control' });
    expect(errorsOf(add, { name: 'Ops', address: 'ops@example.org', events: ['loop'], language: 'device' })).toEqual({});
  });
});

describe('the curl command', () => {
  const settings: EmailServer = { enabled: true, server: 'smtp.example.com', port: 587, security: 'starttls', verify: true, user: 'u', password: 'p4ss', sender: 'gw@example.com', language: 'en-US' };

  test('STARTTLS is required, TLS is smtps://, verification off is --insecure; never a password', () => {
    const argv = curlArguments(settings, 'ops@example.org', { configFile: '/state/email/smtp-x/credentials' });
    expect(argv.slice(0, 5)).toEqual(['curl', '--silent', '--show-error', '--url', 'smtp://smtp.example.com:587']);
    expect(argv).toContain('--ssl-reqd');
    expect(argv).not.toContain('--insecure');
    expect(argv.join(' ')).not.toContain('p4ss');
    expect(argv.slice(argv.indexOf('--config'), argv.indexOf('--config') + 2)).toEqual(['--config', '/state/email/smtp-x/credentials']);
    const tls = curlArguments({ ...settings, security: 'tls', verify: false, port: 465 }, 'ops@example.org', {});
    expect(tls[4]).toBe('smtps://smtp.example.com:465');
    expect(tls).toContain('--insecure');
    expect(tls).not.toContain('--ssl-reqd');
    expect(curlArguments({ ...settings, security: 'none', user: '' }, 'ops@example.org', {})).not.toContain('--insecure');
  });

  test('hostile values never reach the command line', () => {
    expect(() => curlArguments({ ...settings, server: 'smtp.example.com/ -K /etc/passwd' }, 'ops@example.org', {})).toThrow();
    // An address that looks like an option stays the value of --mail-rcpt.
    const argv = curlArguments(settings, '-K/etc/passwd@x.org', {});
    expect(argv[argv.indexOf('--mail-rcpt') + 1]).toBe('-K/etc/passwd@x.org');
    expect(() => curlArguments(settings, 'ops@example.org\r\nRCPT TO:<x@y.z>', {})).toThrow();
    expect(() => curlArguments({ ...settings, sender: 'a@b.c\r\nDATA' }, 'ops@example.org', {})).toThrow();
  });

  test('the credentials go in a 0600 file that is gone afterwards; 5xx and refused logins are permanent', async () => {
    const dir = tempDir('portico-email-');
    const seen: Array<{ argv: string[]; file: string; mode: number }> = [];
    const { readFileSync, statSync, existsSync } = await import('node:fs');
    const answers = [
      { exitCode: 0, stdout: '', stderr: '' },
      { exitCode: 67, stdout: '', stderr: 'curl: (67) Login denied' },
      { exitCode: 55, stdout: '', stderr: 'curl: (55) RCPT failed: 550' },
      { exitCode: 55, stdout: '', stderr: 'curl: (55) RCPT failed: 451' },
      { exitCode: 7, stdout: '', stderr: 'curl: (7) Failed to connect to 127.0.0.1 port 2525' },
    ];
    const run: CommandRunner = async (argv, options) => {
      const file = argv[argv.indexOf('--config') + 1]!;
      seen.push({ argv: [...argv], file: readFileSync(file, 'utf8'), mode: statSync(file).mode & 0o777 });
      expect(options?.input).toBe('message');
      return answers[seen.length - 1]!;
    };
    const transport = new SmtpTransport({ run, tempDir: dir });
    const withQuote = { ...settings, password: 'p"a\\ss' };
    expect(await transport.send(withQuote, 'ops@example.org', 'message')).toEqual({ delivered: true, error: '', permanent: false });
    expect(seen[0]!.file).toBe('user = "u:p\\"a\\\\ss"\n');
    expect(seen[0]!.mode).toBe(0o600);
    expect(existsSync(seen[0]!.argv[seen[0]!.argv.indexOf('--config') + 1]!)).toBe(false);
    expect(await transport.send(settings, 'ops@example.org', 'message')).toMatchObject({ delivered: false, permanent: true, error: 'curl: (67) Login denied' });
    expect(await transport.send(settings, 'ops@example.org', 'message')).toMatchObject({ permanent: true });
    expect(await transport.send(settings, 'ops@example.org', 'message')).toMatchObject({ permanent: false });
    expect(await transport.send(settings, 'ops@example.org', 'message')).toMatchObject({ permanent: false, error: expect.stringContaining('Failed to connect') });
  });
});

describe('the queue and the event signal', () => {
  function database() {
    const db = openDatabase(join(tempDir('portico-email-db-'), 'test.db'));
    migrate(db);
    migrateModule(db, 'email-notice', EMAIL_MIGRATIONS);
    migrateModule(db, 'health', HEALTH_MIGRATIONS);
    return db;
  }

  test('beyond the cap the oldest go, counted; order is kept', () => {
    const queue = new MailQueue(database(), 3);
    const item = (n: number) => ({ created: n, event: 'loop', recipient: `r${n}@example.org`, message: `m${n}` });
    expect(queue.add([item(1), item(2)])).toEqual([]);
    const dropped = queue.add([item(3), item(4), item(5)]);
    expect(dropped.map((d) => d.recipient)).toEqual(['r1@example.org', 'r2@example.org']);
    expect(queue.counter('dropped')).toBe(2);
    expect(queue.list().map((d) => d.message)).toEqual(['m3', 'm4', 'm5']);
    expect(queue.failed(queue.next()!.id, 'down')).toBe(1);
    expect(queue.next()).toMatchObject({ message: 'm3', attempts: 1, lastError: 'down' });
  });

  test('a recorded security event is raised once stored; a failing follower does not hurt the others', () => {
    const reported: string[] = [];
    const bus = new SignalBus((error, id) => reported.push(`${id}: ${String(error)}`));
    const point = signal<{ id: number; kind: string }>('test.event');
    const heard: number[] = [];
    bus.on(point, () => {
      throw new Error('boom');
    });
    const stop = bus.on(point, (e) => void heard.push(e.id));
    const store = new HealthEventStore(database(), (event) => bus.emit(point, event));
    store.append({ time: AT, kind: 'loop', interface: 'lan', port: 'lanp2', ip: '', mac: '', otherMac: '' });
    store.append({ time: AT, kind: 'loop', interface: 'lan', port: 'lanp3', ip: '', mac: '', otherMac: '' });
    expect(heard).toEqual([1, 2]);
    expect(reported).toEqual(['test.event: Error: boom', 'test.event: Error: boom']);
    stop();
    bus.emit(point, { id: 3, kind: 'loop' });
    expect(heard).toEqual([1, 2]);
  });
});
