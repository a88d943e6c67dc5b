import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { LINK_CLOSE_NORMAL, LINK_CLOSE_PROTOCOL_ERROR, LINK_CLOSE_TOO_BIG, type UcentralLink } from '@portico/schema';

/**
 * The server side of RFC 6455 for one device connection whose TLS portico-tlsterm terminates:
 * the upgrade request, then frames, over the plaintext the terminator carries for one
 * connection id. It is the link the controller gets.
 *
 * Why not `ws` over a Duplex, as before: per link that was a Duplex with its two stream states,
 * ws's WebSocket, Receiver (a Writable of its own) and Sender, their listeners and closures,
 * about 2.7 KB of heap, and each message went through two streams. A controller holds 10,000
 * links; here a link is one object and holds no buffer while idle. Node's TLS path keeps `ws`.
 *
 * What it accepts is what `ws` accepted there: text frames (UTF-8 checked, 1007), fragmented or
 * not, masked as clients must; no extensions (no permessage-deflate, so nothing inflates before
 * it is counted), reserved bits refused (1002); a message over `maxPayload` closes with 1009
 * before its bytes arrive; a binary message closes with 1002 (the uCentral link's rule); ping
 * is answered; a close is echoed. Anything but an upgrade request gets 426, a malformed one 400.
 */

/** The terminator's side of a link: bytes to the device, and the end of the connection. */
export interface LinkCarrier {
  /** Sends `size` bytes that `fill` writes at `offset` of the frame it is given. */
  send(id: number, size: number, fill: (frame: Buffer, offset: number) => void): void;
  /** Closes the connection once what was sent is written; nothing more is read from it. */
  end(id: number): void;
}

export interface UpgradeRequest {
  /** Subprotocols the device offered. */
  protocols: Set<string>;
}

/** What the listener decides for a complete upgrade request: the serial the certificate proves and the 101's subprotocol, or a status to refuse with. */
export type UpgradeDecision = { accept: true; serial: string; protocol: string | false } | { accept: false; status: 400 | 403 };

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** Request head limit (Node's HTTP server's default). */
const MAX_HEAD_BYTES = 16 * 1024;
const KEY = /^[+/0-9A-Za-z]{22}==$/;
/** RFC 6455 tokens for subprotocols. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const OP_CONTINUATION = 0;
const OP_TEXT = 1;
const OP_BINARY = 2;
const OP_CLOSE = 8;
const OP_PING = 9;
const OP_PONG = 10;
const CLOSE_NO_STATUS = 1005;
const CLOSE_ABNORMAL = 1006;
const CLOSE_INVALID_DATA = 1007;
const NONE: readonly never[] = [];

const STATUS_TEXT = { 400: 'Bad Request', 403: 'Forbidden', 426: 'Upgrade Required' } as const;

/** Close codes a peer may send (RFC 6455 7.4; ws's rule). */
function validCloseCode(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}

/** After its close frame, the controller waits this long for the device's before it cuts the link (ws's figure). */
const CLOSE_TIMEOUT_MS = 30_000;

type State = 'request' | 'open' | 'closing' | 'closed';

export class TerminatedLink implements UcentralLink {
  localAddress?: string;
  /** The upgrade's bound (the listener's), then the closing handshake's; none while open. */
  deadline: NodeJS.Timeout | undefined;
  private state: State = 'request';
  /** Bytes received and not yet taken as a request head or a whole frame. */
  private pending: Buffer | null = null;
  /** Parts of a fragmented message, their length and its opcode. */
  private fragments: Buffer[] | null = null;
  private fragmentsLength = 0;
  private fragmentsOpcode = 0;
  private serial = '';
  private messages: ReadonlyArray<(text: string) => void> = NONE;
  private closes: ReadonlyArray<(code: number, reason: string) => void> = NONE;

  constructor(
    private readonly carrier: LinkCarrier,
    private readonly id: number,
    private readonly maxPayload: number,
    /** Decides a complete upgrade request; `null` while the link is open or closed. */
    private decide: ((request: UpgradeRequest) => UpgradeDecision) | null,
    /** The link is up (after the 101) or gone (true / false): the listener's count and its hand-over. */
    private readonly settled: (link: TerminatedLink, open: boolean) => void,
    readonly remoteAddress: string,
    localAddress: string | undefined,
  ) {
    if (localAddress) this.localAddress = localAddress;
  }

  /** The serial the connection's certificate proves; set once, by the upgrade's decision. */
  get peerSerial(): string {
    return this.serial;
  }

  send(text: string): void {
    if (this.state !== 'open') return;
    const length = Buffer.byteLength(text);
    const head = length < 126 ? 2 : length < 65536 ? 4 : 10;
    this.carrier.send(this.id, head + length, (frame, at) => {
      frame[at] = 0x80 | OP_TEXT;
      if (head === 2) frame[at + 1] = length;
      else if (head === 4) {
        frame[at + 1] = 126;
        frame.writeUInt16BE(length, at + 2);
      } else {
        frame[at + 1] = 127;
        frame.writeUInt32BE(0, at + 2);
        frame.writeUInt32BE(length, at + 6);
      }
      frame.write(text, at + head, length, 'utf8');
    });
  }

  /** Sends a close frame; the link ends when the device answers with its own, or after CLOSE_TIMEOUT_MS. */
  close(code = LINK_CLOSE_NORMAL, reason = ''): void {
    if (this.state !== 'open') return;
    this.sendClose(code, reason);
    this.state = 'closing';
    this.deadline = setTimeout(() => this.finish(CLOSE_ABNORMAL, ''), CLOSE_TIMEOUT_MS);
    this.deadline.unref();
  }

  onMessage(handler: (text: string) => void): void {
    // Replaced, not pushed to: an array grown by push keeps room for 17.
    this.messages = [...this.messages, handler];
  }

  onClose(handler: (code: number, reason: string) => void): void {
    this.closes = [...this.closes, handler];
  }

  /** Cuts the connection at once (no close frame). */
  terminate(): void {
    if (this.state === 'closed') return;
    this.finish(CLOSE_ABNORMAL, '');
  }

  /** Plaintext from the device. */
  receive(chunk: Buffer): void {
    if (this.state === 'closed') return;
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    if (this.state === 'request') {
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) {
        if (data.length > MAX_HEAD_BYTES) return void this.respond(400);
        this.pending = Buffer.from(data);
        return;
      }
      if (end > MAX_HEAD_BYTES) return void this.respond(400);
      const head = data.toString('latin1', 0, end);
      data = data.subarray(end + 4);
      if (!this.upgrade(head)) return;
    }
    let at = 0;
    while (this.state === 'open' || this.state === 'closing') {
      const used = this.frame(data, at);
      if (used === 0) break;
      at += used;
    }
    // What stays is copied, so the terminator's read it came from is not kept alive.
    if ((this.state === 'open' || this.state === 'closing') && at < data.length) this.pending = Buffer.from(data.subarray(at));
  }

  /** The terminator closed the connection. */
  gone(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.pending = null;
    this.fragments = null;
    clearTimeout(this.deadline);
    this.settled(this, false);
    for (const handler of this.closes) handler(CLOSE_ABNORMAL, '');
  }

  /** The request head: 101 and open, or an answer and the end. */
  private upgrade(head: string): boolean {
    const lines = head.split('\r\n');
    const [method, , version] = lines[0]!.split(' ');
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) return this.respond(400);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
    }
    if (!version?.startsWith('HTTP/1.')) return this.respond(400);
    const connection = (headers.get('connection') ?? '').toLowerCase().split(',').map((token) => token.trim());
    if (!connection.includes('upgrade') || !headers.has('upgrade')) return this.respond(426);
    const decide = this.decide!;
    this.decide = null;
    const key = headers.get('sec-websocket-key') ?? '';
    const offered = headers.get('sec-websocket-protocol');
    const protocols = new Set<string>();
    for (const token of offered === undefined ? [] : offered.split(',').map((p) => p.trim())) {
      if (!TOKEN.test(token) || protocols.has(token)) return this.respond(400);
      protocols.add(token);
    }
    const valid = method === 'GET' && headers.get('upgrade')!.toLowerCase() === 'websocket' && KEY.test(key) && headers.get('sec-websocket-version') === '13';
    const decision = decide({ protocols });
    if (!decision.accept) return this.respond(decision.status);
    if (!valid) return this.respond(400);
    this.serial = decision.serial;
    const accept = createHash('sha1').update(key + GUID).digest('base64');
    const response = `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n${
      decision.protocol ? `Sec-WebSocket-Protocol: ${decision.protocol}\r\n` : ''
    }\r\n`;
    this.carrier.send(this.id, response.length, (frame, at) => void frame.write(response, at, 'latin1'));
    this.state = 'open';
    clearTimeout(this.deadline);
    this.deadline = undefined;
    this.settled(this, true);
    return this.state === 'open';
  }

  /** An HTTP answer that ends the connection. */
  private respond(status: 400 | 403 | 426): false {
    const response = `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nConnection: close\r\n${status === 426 ? 'Upgrade: websocket\r\n' : ''}Content-Length: 0\r\n\r\n`;
    this.carrier.send(this.id, response.length, (frame, at) => void frame.write(response, at, 'latin1'));
    this.state = 'closed';
    this.pending = null;
    clearTimeout(this.deadline);
    this.carrier.end(this.id);
    this.settled(this, false);
    return false;
  }

  /** Takes one frame from `data` at `at`: the bytes used, 0 when it is not all there yet. */
  private frame(data: Buffer, at: number): number {
    const available = data.length - at;
    if (available < 2) return 0;
    const first = data[at]!;
    const second = data[at + 1]!;
    const fin = (first & 0x80) !== 0;
    const opcode = first & 0x0f;
    if ((first & 0x70) !== 0) return this.fail(LINK_CLOSE_PROTOCOL_ERROR, 'reserved bits set');
    if ((second & 0x80) === 0) return this.fail(LINK_CLOSE_PROTOCOL_ERROR, 'frames from a client are masked');
    const control = opcode >= 8;
    if (control ? opcode > OP_PONG : opcode > OP_BINARY) return this.fail(LINK_CLOSE_PROTOCOL_ERROR, 'unknown opcode');
    let length = second & 0x7f;
    let head = 2;
    if (control && (!fin || length > 125)) return this.fail(LINK_CLOSE_PROTOCOL_ERROR, 'invalid control frame');
    if (length === 126) {
      if (available < 4) return 0;
      length = data.readUInt16BE(at + 2);
      head = 4;
    } else if (length === 127) {
      if (available < 10) return 0;
      // Above 2^32 is far above any limit here.
      if (data.readUInt32BE(at + 2) !== 0) return this.fail(LINK_CLOSE_TOO_BIG, 'message too big');
      length = data.readUInt32BE(at + 6);
      head = 10;
    }
    if (!control) {
      if (opcode === OP_CONTINUATION ? this.fragments === null : this.fragments !== null) return this.fail(LINK_CLOSE_PROTOCOL_ERROR, 'unexpected continuation');
      // Counted before its bytes arrive.
      if (this.fragmentsLength + length > this.maxPayload) return this.fail(LINK_CLOSE_TOO_BIG, 'message too big');
    }
    if (available < head + 4 + length) return 0;
    const mask = at + head;
    const payload = Buffer.allocUnsafe(length);
    const m0 = data[mask]!;
    const m1 = data[mask + 1]!;
    const m2 = data[mask + 2]!;
    const m3 = data[mask + 3]!;
    const from = mask + 4;
    let i = 0;
    for (const whole = length & ~3; i < whole; i += 4) {
      payload[i] = data[from + i]! ^ m0;
      payload[i + 1] = data[from + i + 1]! ^ m1;
      payload[i + 2] = data[from + i + 2]! ^ m2;
      payload[i + 3] = data[from + i + 3]! ^ m3;
    }
    for (; i < length; i++) payload[i] = data[from + i]! ^ data[mask + (i & 3)]!;
    const used = head + 4 + length;
    if (control) {
      this.control(opcode, payload);
      return used;
    }
    // Closing: the device's messages are no longer the controller's.
    if (this.state === 'closing') return used;
    if (!fin) {
      if (this.fragments === null) {
        this.fragments = [];
        this.fragmentsOpcode = opcode;
      }
      this.fragments.push(payload);
      this.fragmentsLength += length;
      return used;
    }
    let message = payload;
    let messageOpcode = opcode;
    if (this.fragments !== null) {
      this.fragments.push(payload);
      message = Buffer.concat(this.fragments, this.fragmentsLength + length);
      messageOpcode = this.fragmentsOpcode;
      this.fragments = null;
      this.fragmentsLength = 0;
    }
    if (messageOpcode === OP_BINARY) return this.fail(LINK_CLOSE_PROTOCOL_ERROR, 'text frames only');
    if (!isUtf8(message)) return this.fail(CLOSE_INVALID_DATA, 'invalid UTF-8');
    const text = message.toString('utf8');
    for (const handler of this.messages) {
      handler(text);
      if (this.state !== 'open') break;
    }
    return used;
  }

  private control(opcode: number, payload: Buffer): void {
    if (opcode === OP_PING && this.state === 'open') {
      this.carrier.send(this.id, 2 + payload.length, (frame, at) => {
        frame[at] = 0x80 | OP_PONG;
        frame[at + 1] = payload.length;
        payload.copy(frame, at + 2);
      });
    } else if (opcode === OP_CLOSE) {
      if (payload.length === 1) return void this.fail(LINK_CLOSE_PROTOCOL_ERROR, 'invalid close frame');
      const code = payload.length >= 2 ? payload.readUInt16BE(0) : CLOSE_NO_STATUS;
      if (payload.length >= 2 && !validCloseCode(code)) return void this.fail(LINK_CLOSE_PROTOCOL_ERROR, 'invalid close code');
      if (!isUtf8(payload.subarray(2))) return void this.fail(CLOSE_INVALID_DATA, 'invalid UTF-8');
      const reason = payload.toString('utf8', 2);
      // Echoed, as the closing handshake asks, unless it answers ours; then the connection ends.
      if (this.state === 'open') this.sendClose(code === CLOSE_NO_STATUS ? null : code, reason);
      this.finish(code, reason);
    }
    // A pong needs nothing.
  }

  /** A protocol error: closed with its code. */
  private fail(code: number, reason: string): 0 {
    if (this.state === 'open') this.sendClose(code, reason);
    this.finish(code, reason);
    return 0;
  }

  private sendClose(code: number | null, reason: string): void {
    const text = Buffer.from(reason.slice(0, 120), 'utf8').subarray(0, 123);
    const length = code === null ? 0 : 2 + text.length;
    this.carrier.send(this.id, 2 + length, (frame, at) => {
      frame[at] = 0x80 | OP_CLOSE;
      frame[at + 1] = length;
      if (code !== null) {
        frame.writeUInt16BE(code, at + 2);
        text.copy(frame, at + 4);
      }
    });
  }

  /** The link ends: the terminator sends what is queued and closes; the handlers hear it next turn. */
  private finish(code: number, reason: string): void {
    if (this.state === 'closed') return;
    clearTimeout(this.deadline);
    this.deadline = undefined;
    this.state = 'closed';
    this.pending = null;
    this.fragments = null;
    this.carrier.end(this.id);
    this.settled(this, false);
    // As a socket's 'close': never from inside the caller's own close() or a message handler.
    setImmediate(() => {
      for (const handler of this.closes) handler(code, reason);
    });
  }
}
