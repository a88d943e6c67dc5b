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
