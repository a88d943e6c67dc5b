import { execFileSync } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { diagnosisStartSchema, isSafeText } from '@portico/schema';
import { HOSTILE_STRINGS } from '@portico/schema/testing';
import { addAccount, adminClient, CONDITION_WAIT, get, json, login, post, startDaemon, tempDir, type Client, type Harness } from './daemon-harness.js';
import { formatRfc5424, octetFrame, parseKmsg } from '../src/domains/remote-syslog/remote-syslog-format.js';
import { diagnosisArgv } from '../src/domains/diagnosis/diagnosis-commands.js';
import { TelnetParser, telnetLine } from '../src/domains/diagnosis/diagnosis-telnet.js';

/**
 * Remote logging to receivers this test starts on loopback (UDP, TCP, TLS with the test's own
 * certificate: no syslog daemon can be installed here), and network diagnosis: real ping and
 * route trace to 127.0.0.1 read live by offset, stopped, owned by who started them, and
 * targets that are anything but a host or an address refused.
 */

const RFC5424 = /^<(\d{1,3})>1 (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) (\S+) (\S+) (\S+) (\S+) - (.*)$/s;

let h: Harness;
let admin: Client;
let certDir: string;
let cert: string;
let key: string;
let kmsgFile: string;
let kmsgDrained = false;
beforeAll(async () => {
  certDir = tempDir('portico-syslog-tls-');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=syslog.test', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem')], { stdio: 'ignore' });
  cert = readFileSync(join(certDir, 'cert.pem'), 'utf8');
  key = readFileSync(join(certDir, 'key.pem'), 'utf8');
  // A stand-in for /dev/kmsg (the test must not write to the host's kernel log): one record
  // from before the start, which is never sent.
  kmsgFile = join(certDir, 'kmsg');
  writeFileSync(kmsgFile, '6,1,1000,-;old record from before the start\n');
  h = await startDaemon({ deps: { 'remote-syslog': { ca: cert, kmsg: kmsgFile, onKmsgDrained: () => (kmsgDrained = true) } } });
  admin = await adminClient(h);
});
afterAll(async () => {
  await h?.close();
});

describe('RFC 5424 framing', () => {
  test('header fields, one line of text, octet counting', () => {
    const line = formatRfc5424({ facility: 'daemon', severity: 'notice', app: 'portico', msgid: 'config', text: 'a\nb\u0000c 张', time: Date.UTC(2025, 2, 1, 12, 0, 0, 5) }, 'gw 1', 42);
    expect(line).toBe('<29>1 2025-03-01T12:00:00.005Z gw1 portico 42 config - a b c 张');
    const frame = octetFrame(line);
    expect(frame.toString('utf8')).toBe(`${Buffer.byteLength(line)} ${line}`);
    expect(parseKmsg('6,1234,5678,-;eth0: link up\n SUBSYSTEM=net')).toEqual({ severity: 'info', facility: 'kern', text: 'eth0: link up' });
    expect(parseKmsg('no record')).toBeNull();
  });
});

describe('remote logging', () => {
  test('settings are checked; the test message needs saved settings', async () => {
    const bad = json(await post(h.app, admin, '/api/sysconf/syslog', { enabled: true, server: 'logs.example.org;reboot', transport: 'udp' }));
    expect(bad.errors?.server).toBeDefined();
    expect(json(await post(h.app, admin, '/api/sysconf/syslog', { enabled: true, server: '', transport: 'udp' })).errors?.server).toBe('validation.required');
    expect(json(await post(h.app, admin, '/api/sysconf/syslog', { transport: 'smtp' })).errors?.transport).toBeDefined();
    expect(json(await post(h.app, admin, '/api/sysconf/syslog/test', { action: 'test' }))).toMatchObject({ success: false, msg: 'msg.syslog.off' });
  });

  test('UDP: each message one datagram, configuration changes sent as they are applied', async () => {
    const received: string[] = [];
    const receiver: UdpSocket = createSocket('udp4');
    receiver.on('message', (m) => received.push(m.toString('utf8')));
    await new Promise<void>((resolve) => receiver.bind(0, '127.0.0.1', resolve));
    const port = receiver.address().port;
    try {
      expect(json(await post(h.app, admin, '/api/sysconf/syslog', { enabled: true, server: '127.0.0.1', transport: 'udp', port, severity: 'info' })).success).toBe(true);
      expect(json(await post(h.app, admin, '/api/sysconf/syslog/test', { action: 'test' })).success).toBe(true);
      await vi.waitFor(() => expect(received.some((m) => / portico \d+ test - test message sent by admin$/.test(m))).toBe(true), CONDITION_WAIT);
      const test = received.find((m) => m.includes(' test - '))!;
      const [, pri, stamp] = RFC5424.exec(test)!;
      expect(Number(pri)).toBe(3 * 8 + 6);
      expect(stamp).toBe(new Date(h.clock.ms).toISOString());
      // A later save is itself sent (it was applied after the receiver was set).
      expect(json(await post(h.app, admin, '/api/sysconf/netparam', { tcp_fin_timeout: 45 })).success).toBe(true);
      await vi.waitFor(() => expect(received.some((m) => / config - configuration applied: .*net-param/.test(m))).toBe(true), CONDITION_WAIT);
      // The kernel's messages: what it logs after the start, not its backlog.
      await vi.waitFor(() => expect(kmsgDrained).toBe(true), CONDITION_WAIT);
      appendFileSync(kmsgFile, '3,2,2000,-;eth9: link is down\n');
      await vi.waitFor(() => expect(received.some((m) => /^<3>1 \S+ \S+ kernel \d+ kern - eth9: link is down$/.test(m))).toBe(true), CONDITION_WAIT);
      expect(received.some((m) => m.includes('old record'))).toBe(false);
    } finally {
      receiver.close();
    }
  });

  async function streamReceiver(server: Server): Promise<{ port: number; frames: () => string[] }> {
    let buffer = '';
    server.on('connection', (socket) => socket.on('data', (d) => (buffer += d.toString('utf8'))));
    server.on('secureConnection', (socket: import('node:tls').TLSSocket) => socket.on('data', (d: Buffer) => (buffer += d.toString('utf8'))));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // Octet counting: LEN SP MSG, back to back.
    const frames = () => {
      const out: string[] = [];
      let rest = buffer;
      for (;;) {
        const m = /^(\d+) /.exec(rest);
        if (!m) break;
        const len = Number(m[1]);
        const body = Buffer.from(rest.slice(m[0].length), 'utf8');
        if (body.length < len) break;
        out.push(body.subarray(0, len).toString('utf8'));
        rest = body.subarray(len).toString('utf8');
      }
      return out;
    };
    return { port: (server.address() as AddressInfo).port, frames };
  }

  for (const transport of ['tcp', 'tls'] as const) {
    test(`${transport.toUpperCase()}: octet-counted frames on one connection`, async () => {
      const server = transport === 'tcp' ? createServer() : createTlsServer({ cert, key });
      const receiver = await streamReceiver(server);
      try {
        expect(json(await post(h.app, admin, '/api/sysconf/syslog', { enabled: true, server: '127.0.0.1', transport, port: receiver.port, severity: 'notice', tls_verify: true })).success).toBe(true);
        expect(json(await post(h.app, admin, '/api/sysconf/syslog/test', { action: 'test' })).success).toBe(true);
        expect(json(await post(h.app, admin, '/api/sysconf/syslog/test', { action: 'test' })).success).toBe(true);
        await vi.waitFor(() => expect(receiver.frames().filter((f) => f.includes(' test - ')).length).toBe(2), CONDITION_WAIT);
        for (const frame of receiver.frames()) expect(frame).toMatch(RFC5424);
      } finally {
        expect(json(await post(h.app, admin, '/api/sysconf/syslog', { enabled: false })).success).toBe(true);
        server.close();
      }
    });
  }
});

describe('network diagnosis', () => {
  test('targets are a host name or an address, never options or shell text; counts are bounded', async () => {
    for (const target of ['8.8.8.8;reboot', '-c 1000 127.0.0.1', '$(reboot)', '127.0.0.1 && id', 'a\nb', '--help', '`id`', '']) {
      const reply = json(await post(h.app, admin, '/api/sysconf/diagnosis', { action: 'start', tool: 'ping', target }));
      expect(reply.success, target).toBe(false);
      expect(reply.errors?.target, target).toBeDefined();
    }
    for (const [field, value] of [['count', 1000], ['wait', 0], ['maxhops', 65], ['ifname', 'eth0;reboot'], ['tool', 'nmap']] as const) {
      const reply = json(await post(h.app, admin, '/api/sysconf/diagnosis', { action: 'start', tool: 'ping', target: '127.0.0.1', [field]: value }));
      expect(reply.errors?.[field], field).toBeDefined();
    }
    const run = diagnosisStartSchema.parse({ action: 'start', tool: 'ping', target: 'example.org', ifname: 'eth0', count: 3, wait: 2 });
    expect(diagnosisArgv(run)).toEqual(['ping', '-n', '-c', '3', '-W', '2', '-w', '5', '-I', 'eth0', '--', 'example.org']);
    expect(diagnosisArgv({ ...run, tool: 'traceroute', count: 9, maxhops: 5 })).toEqual(['busybox', 'traceroute', '-n', '-q', '5', '-m', '5', '-w', '2', '-i', 'eth0', 'example.org']);
  });

  test('the hostile corpus in every text field of a run: refused, or an inert host that is never an option', () => {
    for (const field of ['target', 'ifname'] as const) {
      for (const hostile of HOSTILE_STRINGS) {
        const result = diagnosisStartSchema.safeParse({ action: 'start', tool: 'ping', target: '127.0.0.1', [field]: hostile });
        if (!result.success) continue;
        const value = result.data[field];
        expect(isSafeText(value) && !value.startsWith('-') && !/[\s;|&$`<>()'"\\]/.test(value), `${field} took ${JSON.stringify(hostile.slice(0, 60))}`).toBe(true);
      }
    }
  });

  test('ping: lines arrive while it runs, and the run finishes with its summary', async () => {
    const start = json(await post(h.app, admin, '/api/sysconf/diagnosis', { action: 'start', tool: 'ping', target: '127.0.0.1', count: 3, wait: 1 }));
    expect(start.success).toBe(true);
    const id = start.data.id as string;
    // Live: a reply line is readable before the run is over.
    await vi.waitFor(async () => {
      const job = json(await get(h.app, admin, `/api/sysconf/diagnosis?id=${id}&offset=0`)).data;
      expect(job.lines.some((l: string) => /bytes from 127\.0\.0\.1/.test(l))).toBe(true);
      expect(job.running).toBe(true);
    }, CONDITION_WAIT);
    let all: string[] = [];
    let offset = 0;
    await vi.waitFor(async () => {
      const job = json(await get(h.app, admin, `/api/sysconf/diagnosis?id=${id}&offset=${offset}`)).data;
      all = all.concat(job.lines);
      offset = job.next;
      expect(job.running).toBe(false);
      expect(job.code).toBe(0);
    }, CONDITION_WAIT);
    expect(all.join('\n')).toMatch(/3 packets transmitted, 3 received/);
    // Reading by offset gives each line once.
    expect(all.filter((l) => /icmp_seq=1 /.test(l))).toHaveLength(1);
  });

  test('route trace to loopback', async () => {
    const start = json(await post(h.app, admin, '/api/sysconf/diagnosis', { action: 'start', tool: 'traceroute', target: '127.0.0.1', count: 1, maxhops: 3, wait: 1 }));
    expect(start.success).toBe(true);
    await vi.waitFor(async () => {
      const job = json(await get(h.app, admin, `/api/sysconf/diagnosis?id=${start.data.id}&offset=0`)).data;
      expect(job.running).toBe(false);
      expect(job.lines.join('\n')).toMatch(/^ ?1 +127\.0\.0\.1/m);
    }, CONDITION_WAIT);
  });

  test('a running job is stopped; another account cannot read or stop it', async () => {
    const start = json(await post(h.app, admin, '/api/sysconf/diagnosis', { action: 'start', tool: 'ping', target: '127.0.0.1', count: 100, wait: 1 }));
    const id = start.data.id as string;
    const account = await addAccount(h, admin, 'operator2', 0);
    const other = await login(h.app, 'operator2', account.password);
    expect(json(await get(h.app, other, `/api/sysconf/diagnosis?id=${id}`)).success).toBe(false);
    expect(json(await post(h.app, other, '/api/sysconf/diagnosis', { action: 'stop', id })).success).toBe(false);
    expect(json(await post(h.app, admin, '/api/sysconf/diagnosis', { action: 'stop', id })).success).toBe(true);
    await vi.waitFor(async () => {
      const job = json(await get(h.app, admin, `/api/sysconf/diagnosis?id=${id}`)).data;
      expect(job).toMatchObject({ running: false, stopped: true, code: null });
    }, CONDITION_WAIT);
  });

  test('the interfaces offered are the device\'s', async () => {
    const data = json(await get(h.app, admin, `/api/sysconf/diagnosis?_=${h.clock.ms}`)).data;
    expect(data.tools).toEqual(['ping', 'traceroute']);
    expect(data.interfaces).toContain('lo');
  });
});

describe('telnet client', () => {
  test('options are refused, subnegotiations skipped, IAC doubled on the way out', () => {
    const parser = new TelnetParser();
    const { data, replies } = parser.feed(Buffer.from([255, 253, 1, 255, 251, 3, 104, 255, 250, 24, 1, 255, 240, 105, 255, 255, 255, 241]));
    expect([...replies]).toEqual([255, 252, 1, 255, 254, 3]);
    expect([...data]).toEqual([104, 105, 255]);
    expect([...telnetLine('a\u00ff')]).toEqual([97, 0xc3, 0xbf, 13, 10]);
  });

  test('a session: the banner shown as text, a line sent and answered, closed; journalled; owned', async () => {
    const seen: Buffer[] = [];
    const server = createServer((socket) => {
      socket.write(Buffer.from([255, 253, 1, 255, 251, 3]));
      socket.write('router login: \x1b[1mbold\x1b[0m\r\n');
      socket.on('data', (d) => {
        seen.push(d);
        const text = Buffer.concat(seen).toString('latin1');
        const m = /hello\r\n/.exec(text);
        if (m && !text.includes('answered')) socket.write('you said hello\r\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      for (const host of ['127.0.0.1;id', '-oProxyCommand=x', '$(reboot)']) {
        expect(json(await post(h.app, admin, '/api/sysconf/telnet', { action: 'open', host, port })).errors?.host, host).toBeDefined();
      }
      const open = json(await post(h.app, admin, '/api/sysconf/telnet', { action: 'open', host: '127.0.0.1', port }));
      expect(open.success).toBe(true);
      const id = open.data.id as string;
      let text = '';
      let offset = 0;
      const read = async () => {
        const view = json(await get(h.app, admin, `/api/sysconf/telnet?id=${id}&offset=${offset}`)).data;
        text += view.text;
        offset = view.next;
        return view;
      };
      await vi.waitFor(async () => {
        await read();
        expect(text).toContain('router login: bold');
      }, CONDITION_WAIT);
      expect(text).not.toContain('\x1b');
      await vi.waitFor(() => expect([...Buffer.concat(seen)].slice(0, 6)).toEqual([255, 252, 1, 255, 254, 3]), CONDITION_WAIT);
      expect(json(await post(h.app, admin, '/api/sysconf/telnet', { action: 'send', id, line: 'a\nreboot' })).errors?.line).toBeDefined();
      expect(json(await post(h.app, admin, '/api/sysconf/telnet', { action: 'send', id, line: 'hello' })).success).toBe(true);
      await vi.waitFor(async () => {
        await read();
        expect(text).toContain('you said hello\n');
      }, CONDITION_WAIT);
      const account = await addAccount(h, admin, 'operator3', 0);
      const other = await login(h.app, 'operator3', account.password);
      expect(json(await get(h.app, other, `/api/sysconf/telnet?id=${id}`)).success).toBe(false);
      expect(json(await post(h.app, other, '/api/sysconf/telnet', { action: 'send', id, line: 'x' })).success).toBe(false);
      expect(json(await post(h.app, admin, '/api/sysconf/telnet', { action: 'close', id })).success).toBe(true);
      const closed = await read();
      expect(closed).toMatchObject({ state: 'closed', reason: 'user' });
      expect(json(await post(h.app, admin, '/api/sysconf/telnet', { action: 'send', id, line: 'x' }))).toMatchObject({ success: false, msg: 'msg.telnet.closed' });
    } finally {
      server.close();
    }
  });

  test('a refused connection says so', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const open = json(await post(h.app, admin, '/api/sysconf/telnet', { action: 'open', host: '127.0.0.1', port }));
    await vi.waitFor(async () => {
      expect(json(await get(h.app, admin, `/api/sysconf/telnet?id=${open.data.id}`)).data).toMatchObject({ state: 'closed', reason: 'refused' });
    }, CONDITION_WAIT);
  });
});
