import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';

/**
 * A small SMTP server on loopback for the e-mail tests (RFC 5321 with STARTTLS, RFC 3207, and
 * AUTH PLAIN / LOGIN, RFC 4954), or SMTPS (TLS from the first byte). It keeps what it received
 * so a test reads the message as the server got it, after curl's transfer.
 */

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as sent (dot-stuffing undone), lines ending CRLF. */
  data: string;
  tls: boolean;
  /** The SASL mechanism used, or '' when the client did not authenticate. */
  mechanism: string;
  user: string;
}

export interface SmtpServerOptions {
  mode: 'plain' | 'starttls' | 'tls';
  tls?: { key: string; cert: string };
  /** Mechanisms advertised (after TLS); with credentials, MAIL is refused until AUTH passed. */
  auth?: { mechanisms: ReadonlyArray<'PLAIN' | 'LOGIN'>; user: string; password: string };
  port?: number;
}

export interface SmtpServer {
  port: number;
  mails: ReceivedMail[];
  /** Every command line received, in order (passwords included: the test's own). */
  commands: string[];
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 made with openssl in `dir`. */
export function testCertificate(dir: string): { key: string; cert: string; certFile: string } {
  const keyFile = join(dir, 'smtp-key.pem');
  const certFile = join(dir, 'smtp-cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=smtp.test', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (text: string) => Buffer.from(text, 'base64').toString('utf8');

export function startSmtpServer(options: SmtpServerOptions): Promise<SmtpServer> {
  const mails: ReceivedMail[] = [];
  const commands: string[] = [];
  const sockets = new Set<Socket>();

  const session = (raw: Socket) => {
    sockets.add(raw);
    raw.on('close', () => sockets.delete(raw));
    let socket: Socket = raw;
    let secure = false;
    let buffer = '';
    let authed = false;
    let mechanism = '';
    let user = '';
    let from = '';
    let to: string[] = [];
    let data: string[] | null = null;
    /** The next line answers a pending AUTH step. */
    let awaiting: ((line: string) => void) | null = null;
    const say = (line: string) => socket.write(`${line}\r\n`);

    const finishAuth = (mech: string, name: string, password: string) => {
      if (options.auth && name === options.auth.user && password === options.auth.password) {
        authed = true;
        mechanism = mech;
        user = name;
        say('235 2.7.0 Authentication successful');
      } else say('535 5.7.8 Authentication credentials invalid');
    };

    const command = (line: string) => {
      if (data) {
        if (line === '.') {
          mails.push({ from, to, data: data.map((l) => `${l}\r\n`).join(''), tls: secure, mechanism, user });
          data = null;
          from = '';
          to = [];
          say('250 2.0.0 queued');
        } else data.push(line.startsWith('..') ? line.slice(1) : line);
        return;
      }
      commands.push(line);
      if (awaiting) {
        const step = awaiting;
        awaiting = null;
        step(line);
        return;
      }
      const verb = line.split(' ')[0]!.toUpperCase();
      switch (verb) {
        case 'EHLO': {
          const lines = ['250-smtp.test'];
          if (options.mode === 'starttls' && !secure) lines.push('250-STARTTLS');
          if (options.auth && secure) lines.push(`250-AUTH ${options.auth.mechanisms.join(' ')}`);
          lines.push('250 8BITMIME');
          socket.write(lines.map((l) => `${l}\r\n`).join(''));
          return;
        }
        case 'HELO':
          return say('250 smtp.test');
        case 'STARTTLS': {
          if (options.mode !== 'starttls' || secure || !options.tls) return say('454 4.7.0 TLS not available');
          say('220 2.0.0 Ready to start TLS');
          raw.removeAllListeners('data');
          const upgraded = new TLSSocket(raw, { isServer: true, key: options.tls.key, cert: options.tls.cert });
          upgraded.on('error', () => undefined);
          socket = upgraded;
          secure = true;
          buffer = '';
          upgraded.on('data', onData);
          return;
        }
        case 'AUTH': {
          const [, mech = '', initial] = line.split(' ');
          const allowed = options.auth?.mechanisms.includes(mech.toUpperCase() as 'PLAIN' | 'LOGIN');
          if (!options.auth || !secure || !allowed) return say('504 5.5.4 Unrecognized authentication type');
          if (mech.toUpperCase() === 'PLAIN') {
            const decode = (text: string) => {
              const [, name = '', password = ''] = unb64(text).split('\0');
              finishAuth('PLAIN', name, password);
            };
            if (initial && initial !== '=') return decode(initial);
            say('334 ');
            awaiting = decode;
            return;
          }
          const askPassword = (nameLine: string) => {
            say(`334 ${b64('Password:')}`);
            awaiting = (passwordLine) => finishAuth('LOGIN', unb64(nameLine), unb64(passwordLine));
          };
          if (initial) return askPassword(initial);
          say(`334 ${b64('Username:')}`);
          awaiting = askPassword;
          return;
        }
        case 'MAIL':
          if (options.auth && !authed) return say('530 5.7.0 Authentication required');
          from = /<([^>]*)>/.exec(line)?.[1] ?? '';
          return say('250 2.1.0 Ok');
        case 'RCPT': {
          const rcpt = /<([^>]*)>/.exec(line)?.[1] ?? '';
          if (rcpt.startsWith('nobody@')) return say('550 5.1.1 No such user');
          to.push(rcpt);
          return say('250 2.1.5 Ok');
        }
        case 'DATA':
          if (to.length === 0) return say('503 5.5.1 No recipients');
          data = [];
          return say('354 End data with <CR><LF>.<CR><LF>');
        case 'RSET':
          from = '';
          to = [];
          return say('250 2.0.0 Ok');
        case 'NOOP':
          return say('250 2.0.0 Ok');
        case 'QUIT':
          say('221 2.0.0 Bye');
          socket.end();
          return;
        default:
          return say('502 5.5.2 Command not recognized');
      }
    };

    function onData(chunk: Buffer) {
      buffer += chunk.toString('utf8');
      let at: number;
      while ((at = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        command(line);
      }
    }

    if (options.mode === 'tls') {
      if (!options.tls) throw new Error('tls mode needs a certificate');
      const upgraded = new TLSSocket(raw, { isServer: true, key: options.tls.key, cert: options.tls.cert });
      upgraded.on('error', () => undefined);
      socket = upgraded;
      secure = true;
      upgraded.on('data', onData);
    } else raw.on('data', onData);
    raw.on('error', () => undefined);
    say('220 smtp.test ESMTP');
  };

  const server: Server = createServer(session);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        mails,
        commands,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/** A loopback port nothing listens on (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The header block and the decoded body of a received message. */
export function parseMail(data: string): { headers: Map<string, string>; body: string } {
  const [head = '', rest = ''] = data.split('\r\n\r\n');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]/g, ' ').split('\r\n')) {
    const at = line.indexOf(':');
    headers.set(line.slice(0, at).toLowerCase(), line.slice(at + 1).trim());
  }
  return { headers, body: Buffer.from(rest.replace(/\r\n/g, ''), 'base64').toString('utf8') };
}

/** An RFC 2047 header value of B-encoded UTF-8 words as text. */
export function decodeWords(value: string): string {
  return value
    .split(/\s+/)
    .map((word) => {
      const match = /^=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=$/.exec(word);
      if (!match) throw new Error(`not an encoded word: ${word}`);
      return Buffer.from(match[1]!, 'base64').toString('utf8');
    })
    .join('');
}
