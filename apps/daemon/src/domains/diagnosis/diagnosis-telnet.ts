import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** Telnet commands (RFC 854) this client reads. */
const IAC = 255;
const DONT = 254;
const DO = 253;
const WONT = 252;
const WILL = 251;
const SB = 250;
const SE = 240;

/** Output kept per session (oldest dropped first), sessions at once, idle limit. */
export const TELNET_OUTPUT_MAX = 256 * 1024;
export const TELNET_SESSIONS_MAX = 4;
export const TELNET_IDLE_MS = 10 * 60_000;
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Reads a telnet stream: data bytes out, every option the peer offers or asks for refused
 * (DO -> WONT, WILL -> DONT), subnegotiations skipped. The client is a plain line console, so
 * it never agrees to echo, terminal types or anything else.
 */
export class TelnetParser {
  private state: 'data' | 'iac' | 'option' | 'sb' | 'sb-iac' = 'data';
  private verb = 0;

  /** Data bytes of `chunk`, and the replies to send back. */
  feed(chunk: Buffer): { data: Buffer; replies: Buffer } {
    const data: number[] = [];
    const replies: number[] = [];
    for (const byte of chunk) {
      switch (this.state) {
        case 'data':
          if (byte === IAC) this.state = 'iac';
          else data.push(byte);
          break;
        case 'iac':
          if (byte === IAC) {
            data.push(IAC);
            this.state = 'data';
          } else if (byte === DO || byte === DONT || byte === WILL || byte === WONT) {
            this.verb = byte;
            this.state = 'option';
          } else if (byte === SB) this.state = 'sb';
          else this.state = 'data'; // NOP, GA, AYT …: nothing to do
          break;
        case 'option':
          if (this.verb === DO) replies.push(IAC, WONT, byte);
          else if (this.verb === WILL) replies.push(IAC, DONT, byte);
          this.state = 'data';
          break;
        case 'sb':
          if (byte === IAC) this.state = 'sb-iac';
          break;
        case 'sb-iac':
          this.state = byte === SE ? 'data' : 'sb';
          break;
      }
    }
    return { data: Buffer.from(data), replies: Buffer.from(replies) };
  }
}

/** A line as sent: data bytes with IAC doubled, ended by CR LF (RFC 854 NVT). */
export function telnetLine(line: string): Buffer {
  const bytes = Buffer.from(`${line}\r\n`, 'utf8');
  const out: number[] = [];
  for (const byte of bytes) {
    out.push(byte);
    if (byte === IAC) out.push(IAC);
  }
  return Buffer.from(out);
}

export interface TelnetView {
  id: string;
  host: string;
  port: number;
  state: 'connecting' | 'open' | 'closed';
  /** Why it closed, when it did: `refused`, `timeout`, `peer`, `user`, `idle`, `error`. */
  reason: string | null;
  text: string;
  next: number;
}

interface Session {
  id: string;
  owner: string;
  host: string;
  port: number;
  socket: Socket;
  parser: TelnetParser;
  decoder: TextDecoder;
  state: TelnetView['state'];
  reason: string | null;
  /** Output text; `base` is the offset of its first character. */
  text: string;
  base: number;
  bytesIn: number;
  bytesOut: number;
  idle: NodeJS.Timeout | null;
}

export interface TelnetEvents {
  opened(session: { id: string; owner: string; host: string; port: number }): void;
  closed(session: { id: string; owner: string; host: string; port: number; reason: string; bytesIn: number; bytesOut: number }): void;
}

/**
 * Telnet sessions from the device (a Node socket, no telnet binary, no shell): output read by
 * offset as text without control characters, lines sent, closed by the user, the peer or after
 * ten idle minutes. A session belongs to the account that opened it.
 */
export class TelnetSessions {
  private sessions = new Map<string, Session>();

  constructor(private readonly events: TelnetEvents) {}

  open(owner: string, host: string, port: number): { id: string } | { busy: true } {
    if ([...this.sessions.values()].filter((s) => s.state !== 'closed').length >= TELNET_SESSIONS_MAX) return { busy: true };
    for (const [id, s] of this.sessions) if (s.state === 'closed' && s.owner === owner) this.sessions.delete(id);
    const socket = connect({ host, port, timeout: CONNECT_TIMEOUT_MS });
    const session: Session = {
      id: randomUUID(),
      owner,
      host,
      port,
      socket,
      parser: new TelnetParser(),
      decoder: new TextDecoder('utf-8'),
      state: 'connecting',
      reason: null,
      text: '',
      base: 0,
      bytesIn: 0,
      bytesOut: 0,
      idle: null,
    };
    this.sessions.set(session.id, session);
    socket.once('connect', () => {
      session.state = 'open';
      socket.setTimeout(0);
      this.touch(session);
      this.events.opened({ id: session.id, owner, host, port });
    });
    socket.on('timeout', () => this.end(session, 'timeout'));
    socket.on('data', (chunk: Buffer) => {
      session.bytesIn += chunk.length;
      const { data, replies } = session.parser.feed(chunk);
      if (replies.length) socket.write(replies);
      this.append(session, session.decoder.decode(data, { stream: true }));
    });
    socket.on('error', (error: NodeJS.ErrnoException) => this.end(session, error.code === 'ECONNREFUSED' ? 'refused' : 'error'));
    socket.on('close', () => this.end(session, 'peer'));
    return { id: session.id };
  }

  read(owner: string, id: string, offset: number): TelnetView | undefined {
    const s = this.sessions.get(id);
    if (!s || s.owner !== owner) return undefined;
    const from = Math.max(offset, s.base) - s.base;
    return { id, host: s.host, port: s.port, state: s.state, reason: s.reason, text: s.text.slice(from), next: s.base + s.text.length };
  }

  send(owner: string, id: string, line: string): 'sent' | 'closed' | 'unknown' {
    const s = this.sessions.get(id);
    if (!s || s.owner !== owner) return 'unknown';
    if (s.state !== 'open') return 'closed';
    const bytes = telnetLine(line);
    s.bytesOut += bytes.length;
    s.socket.write(bytes);
    this.touch(s);
    return 'sent';
  }

  close(owner: string, id: string): boolean {
    const s = this.sessions.get(id);
    if (!s || s.owner !== owner) return false;
    this.end(s, 'user');
    return true;
  }

  closeAll(): void {
    for (const s of this.sessions.values()) this.end(s, 'user');
  }

  private touch(s: Session): void {
    if (s.idle) clearTimeout(s.idle);
    s.idle = setTimeout(() => this.end(s, 'idle'), TELNET_IDLE_MS);
    s.idle.unref();
  }

  private append(s: Session, text: string): void {
    // Shown as text: terminal escape sequences (CSI, e.g. colours) and CR dropped, any other
    // control character removed.
    s.text += text
      // eslint-disable-next-line no-control-regex
      .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '')
      .replace(/\r/g, '')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
    if (s.text.length > TELNET_OUTPUT_MAX) {
      const drop = s.text.length - TELNET_OUTPUT_MAX;
      s.text = s.text.slice(drop);
      s.base += drop;
    }
  }

  private end(s: Session, reason: string): void {
    if (s.state === 'closed') return;
    const wasOpen = s.state === 'open';
    s.state = 'closed';
    s.reason = reason;
    if (s.idle) clearTimeout(s.idle);
    s.socket.destroy();
    this.append(s, s.decoder.decode());
    if (wasOpen) this.events.closed({ id: s.id, owner: s.owner, host: s.host, port: s.port, reason, bytesIn: s.bytesIn, bytesOut: s.bytesOut });
  }
}
