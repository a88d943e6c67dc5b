/**
 * One connection between a device and the controller, as both sides see it: text messages in
 * order, a close. The TLS WebSocket transport provides it; tests and the AP simulator use
 * `linkPair`, the same contract in memory. `peerSerial` is the serial the other side proved
 * (on the controller: the subject of the device's client certificate, checked against the
 * device CA by TLS; on a device: unused).
 */
export interface UcentralLink {
  readonly peerSerial: string;
  readonly remoteAddress: string;
  /** The address the other side reached this one on, when the transport knows it (the controller's end of a TLS link). */
  readonly localAddress?: string;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  onMessage(handler: (text: string) => void): void;
  onClose(handler: (code: number, reason: string) => void): void;
}

/** WebSocket close codes the two sides use (RFC 6455 §7.4.1). */
export const LINK_CLOSE_NORMAL = 1000;
export const LINK_CLOSE_PROTOCOL_ERROR = 1002;
export const LINK_CLOSE_POLICY = 1008;
export const LINK_CLOSE_TOO_BIG = 1009;

/**
 * Two connected in-memory ends. Messages are delivered asynchronously and in order, as on a
 * socket; a message sent after close is dropped.
 */
export function linkPair(deviceSerial: string, deviceAddress = '127.0.0.1:0'): { device: UcentralLink; controller: UcentralLink } {
  type End = { messages: Array<(t: string) => void>; closes: Array<(c: number, r: string) => void>; closed: boolean };
  const ends: [End, End] = [
    { messages: [], closes: [], closed: false },
    { messages: [], closes: [], closed: false },
  ];
  const make = (self: End, other: End, peerSerial: string, remoteAddress: string): UcentralLink => ({
    peerSerial,
    remoteAddress,
    send(text) {
      if (self.closed) return;
      queueMicrotask(() => {
        if (!other.closed) for (const handler of other.messages) handler(text);
      });
    },
    close(code = LINK_CLOSE_NORMAL, reason = '') {
      if (self.closed) return;
      self.closed = true;
      queueMicrotask(() => {
        for (const end of [self, other]) {
          const wasOpen = end === self || !end.closed;
          end.closed = true;
          if (wasOpen) for (const handler of end.closes) handler(code, reason);
        }
      });
    },
    onMessage(handler) {
      self.messages.push(handler);
    },
    onClose(handler) {
      self.closes.push(handler);
    },
  });
  return {
    device: make(ends[0], ends[1], '', 'controller'),
    controller: make(ends[1], ends[0], deviceSerial, deviceAddress),
  };
}

/**
 * What `webSocketLink` needs of a WebSocket: the `ws` package's socket has this shape on both
 * the controller's and the device's side (declared here so the schema needs no `ws`).
 */
export interface LinkSocket {
  readonly readyState: number;
  readonly OPEN: number;
  readonly CONNECTING: number;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  on(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): unknown;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** One WebSocket as a UcentralLink: text frames only; anything binary is a protocol error. */
export function webSocketLink(ws: LinkSocket, peerSerial: string, remoteAddress: string, localAddress?: string): UcentralLink {
  // Replaced, not pushed to: a link usually has one handler of each, and an array grown by push
  // keeps room for 17 (a controller holds 10,000 links).
  let messages: ReadonlyArray<(text: string) => void> = [];
  let closes: ReadonlyArray<(code: number, reason: string) => void> = [];
  let closed = false;
  ws.on('message', (data, isBinary) => {
    if (closed) return;
    if (isBinary) {
      ws.close(LINK_CLOSE_PROTOCOL_ERROR, 'text frames only');
      return;
    }
    const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');
    for (const handler of messages) handler(text);
  });
  ws.on('close', (code, reason) => {
    if (closed) return;
    closed = true;
    for (const handler of closes) handler(code, reason.toString('utf8'));
  });
  // An error is followed by 'close'; without a listener ws would throw it.
  ws.on('error', () => undefined);
  return {
    peerSerial,
    remoteAddress,
    ...(localAddress ? { localAddress } : {}),
    send(text) {
      if (!closed && ws.readyState === ws.OPEN) ws.send(text);
    },
    close(code = LINK_CLOSE_NORMAL, reason = '') {
      // A peer that never answers the close handshake is cut after ws's own close timeout.
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason.slice(0, 120));
    },
    onMessage(handler) {
      messages = [...messages, handler];
    },
    onClose(handler) {
      closes = [...closes, handler];
    },
  };
}
