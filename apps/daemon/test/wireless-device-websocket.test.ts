import { createHash } from 'node:crypto';
import { describe, expect, test, vi } from 'vitest';
import { TerminatedLink, type LinkCarrier, type UpgradeDecision } from '../src/domains/wireless/wireless-device-websocket.js';

/**
 * The WebSocket server side the device listener runs over portico-tlsterm's connections, driven
 * byte by byte: the cases a real client seldom sends (unmasked, reserved bits, fragments, bad
 * UTF-8, bad close frames, malformed upgrades). The listener's tests run it over real TLS.
 */

const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';
const UPGRADE = `GET / HTTP/1.1\r\nHost: gw\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: ucentral-broker\r\n\r\n`;

class Wire implements LinkCarrier {
  readonly out: Buffer[] = [];
  ended = false;
  send(_id: number, size: number, fill: (frame: Buffer, offset: number) => void): void {
    const frame = Buffer.alloc(size);
    fill(frame, 0);
    this.out.push(frame);
  }
  end(): void {
    this.ended = true;
  }
  text(): string {
    return Buffer.concat(this.out).toString('latin1');
  }
  /** Server frames after the 101: [opcode, payload]. */
  frames(): Array<[number, Buffer]> {
    const all = Buffer.concat(this.out.slice(1));
    const frames: Array<[number, Buffer]> = [];
    for (let at = 0; at < all.length; ) {
      let length = all[at + 1]! & 0x7f;
      let head = 2;
      if (length === 126) [length, head] = [all.readUInt16BE(at + 2), 4];
      else if (length === 127) [length, head] = [all.readUInt32BE(at + 6), 10];
      frames.push([all[at]! & 0x0f, all.subarray(at + head, at + head + length)]);
      at += head + length;
    }
    return frames;
  }
}

/** A client frame: masked unless told, FIN unless told. */
function frame(opcode: number, payload: Buffer | string, { fin = true, masked = true, rsv = 0 } = {}): Buffer {
  const data = Buffer.from(payload);
  const length = data.length;
  const head = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const out = Buffer.alloc(head + (masked ? 4 : 0) + length);
  out[0] = (fin ? 0x80 : 0) | rsv | opcode;
  out[1] = (masked ? 0x80 : 0) | (head === 2 ? length : head === 4 ? 126 : 127);
  if (head === 4) out.writeUInt16BE(length, 2);
  if (head === 10) out.writeUInt32BE(length, 6);
  if (masked) mask.copy(out, head);
  for (let i = 0; i < length; i++) out[head + (masked ? 4 : 0) + i] = masked ? data[i]! ^ mask[i & 3]! : data[i]!;
  return out;
}

function setUp(decision: UpgradeDecision = { accept: true, serial: '04aa00000001', protocol: 'ucentral-broker' }, maxPayload = 1024) {
  const wire = new Wire();
  const states: boolean[] = [];
  const messages: string[] = [];
  const closes: Array<[number, string]> = [];
  const link = new TerminatedLink(wire, 7, maxPayload, () => decision, (_link, up) => states.push(up), '127.0.0.1:5000', '127.0.0.1');
  link.onMessage((text) => messages.push(text));
  link.onClose((code, reason) => closes.push([code, reason]));
  return { wire, link, states, messages, closes };
}

function opened() {
  const context = setUp();
  context.link.receive(Buffer.from(UPGRADE));
  return context;
}

describe('a device link over the terminator', () => {
  test('the upgrade is answered with the RFC 6455 accept key and the subprotocol; the link takes the decided serial', () => {
    const { wire, link, states } = setUp();
    expect(link.peerSerial).toBe('');
    // The head split across reads.
    link.receive(Buffer.from(UPGRADE.slice(0, 30)));
    expect(wire.out).toHaveLength(0);
    link.receive(Buffer.from(UPGRADE.slice(30)));
    const accept = createHash('sha1').update(`${KEY}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    expect(accept).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
    expect(wire.text()).toBe(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ucentral-broker\r\n\r\n`);
    expect(link.peerSerial).toBe('04aa00000001');
    expect(states).toEqual([true]);
  });

  test('anything but an upgrade gets 426, a malformed upgrade 400, a refused certificate 403; each ends the connection', () => {
    const plain = setUp();
    plain.link.receive(Buffer.from('GET / HTTP/1.1\r\nHost: gw\r\n\r\n'));
    expect(plain.wire.text()).toMatch(/^HTTP\/1\.1 426 /);
    expect(plain.wire.ended).toBe(true);
    expect(plain.states).toEqual([false]);

    for (const bad of [UPGRADE.replace('Version: 13', 'Version: 8'), UPGRADE.replace(KEY, 'short'), UPGRADE.replace('GET', 'POST'), UPGRADE.replace('ucentral-broker', 'a b')]) {
      const { wire, link } = setUp();
      link.receive(Buffer.from(bad));
      expect(wire.text()).toMatch(/^HTTP\/1\.1 400 /);
      expect(wire.ended).toBe(true);
      expect(link.peerSerial).toBe('');
    }

    const refused = setUp({ accept: false, status: 403 });
    refused.link.receive(Buffer.from(UPGRADE));
    expect(refused.wire.text()).toMatch(/^HTTP\/1\.1 403 /);
    expect(refused.wire.ended).toBe(true);

    const endless = setUp();
    endless.link.receive(Buffer.from(`GET / HTTP/1.1\r\nX: ${'a'.repeat(17 * 1024)}`));
    expect(endless.wire.text()).toMatch(/^HTTP\/1\.1 400 /);
  });

  test('text messages, whole or in fragments, split anywhere across reads, reach the handlers', () => {
    const { link, messages } = opened();
    const bytes = Buffer.concat([frame(1, '{"a":1}'), frame(1, '{"b":', { fin: false }), frame(9, 'p'), frame(0, '"ü"}'), frame(1, 'x'.repeat(300))]);
    for (let i = 0; i < bytes.length; i += 5) link.receive(bytes.subarray(i, i + 5));
    expect(messages).toEqual(['{"a":1}', '{"b":"ü"}', 'x'.repeat(300)]);
  });

  test('a ping is answered with its payload; what the controller sends goes out as text frames of any size', () => {
    const { wire, link } = opened();
    link.receive(frame(9, 'are you there'));
    link.send('hello');
    link.send('y'.repeat(70_000));
    expect(wire.frames().map(([op, payload]) => [op, payload.length])).toEqual([
      [10, 13],
      [1, 5],
      [1, 70_000],
    ]);
    expect(wire.frames()[0]![1].toString()).toBe('are you there');
  });

  test('protocol errors close the link with their code: unmasked, reserved bits, unknown opcode, stray continuation, binary, bad UTF-8, too big, bad control frames', async () => {
    const cases: Array<[Buffer, number]> = [
      [frame(1, 'a', { masked: false }), 1002],
      [frame(1, 'a', { rsv: 0x40 }), 1002],
      [frame(3, 'a'), 1002],
      [frame(0, 'a'), 1002],
      [Buffer.concat([frame(1, 'a', { fin: false }), frame(1, 'b')]), 1002],
      [frame(2, 'a'), 1002],
      [frame(1, Buffer.from([0xc3, 0x28])), 1007],
      [frame(9, 'a', { fin: false }), 1002],
      [frame(9, 'a'.repeat(126)), 1002],
      [frame(8, Buffer.from([3])), 1002],
      [frame(8, Buffer.from([0x03, 0xed])), 1002],
      // Counted from the header, before the payload arrives.
      [frame(1, 'a'.repeat(2000)).subarray(0, 10), 1009],
      [Buffer.concat([frame(1, 'a'.repeat(600), { fin: false }), frame(0, 'a'.repeat(600))]), 1009],
    ];
    for (const [bytes, code] of cases) {
      const { wire, link, messages, closes, states } = opened();
      link.receive(bytes);
      expect(wire.ended).toBe(true);
      const [op, payload] = wire.frames().at(-1)!;
      expect([op, payload.readUInt16BE(0)]).toEqual([8, code]);
      expect(messages).toEqual([]);
      expect(states).toEqual([true, false]);
      // Heard on the next turn, as a socket's close.
      await vi.waitFor(() => expect(closes.map(([c]) => c)).toEqual([code]));
      link.send('late');
      expect(wire.frames().at(-1)![0]).toBe(8);
    }
  });

  test("a device's close is echoed and ends the link; the controller's close sends its code and reason", async () => {
    const device = opened();
    device.link.receive(frame(8, Buffer.concat([Buffer.from([0x03, 0xe8]), Buffer.from('bye')])));
    expect(device.wire.frames().at(-1)![1].toString('latin1')).toBe('\x03\xe8bye');
    expect(device.wire.ended).toBe(true);
    await vi.waitFor(() => expect(device.closes).toEqual([[1000, 'bye']]));

    const controller = opened();
    controller.link.close(4000, 'replaced');
    expect(controller.wire.frames().at(-1)![1].toString('latin1')).toBe('\x0f\xa0replaced');
    // Open until the device answers; what it sends meanwhile is not the controller's.
    expect(controller.wire.ended).toBe(false);
    controller.link.receive(frame(1, 'late report'));
    controller.link.receive(frame(8, Buffer.from('\x0f\xa0replaced', 'latin1')));
    expect(controller.wire.ended).toBe(true);
    expect(controller.wire.frames().filter(([op]) => op === 8)).toHaveLength(1);
    await vi.waitFor(() => expect(controller.closes).toEqual([[4000, 'replaced']]));
    expect(controller.messages).toEqual([]);
    expect(controller.states).toEqual([true, false]);
  });

  test('a device that never answers the close is cut after 30 s', () => {
    vi.useFakeTimers();
    try {
      const { wire, link, closes } = opened();
      link.close(1008, 'revoked');
      vi.advanceTimersByTime(29_000);
      expect(wire.ended).toBe(false);
      vi.advanceTimersByTime(1_000);
      expect(wire.ended).toBe(true);
      vi.runAllTimers();
      expect(closes).toEqual([[1006, '']]);
    } finally {
      vi.useRealTimers();
    }
  });

  test('the terminator ending the connection closes the link once', () => {
    const { link, closes, states } = opened();
    link.gone();
    link.gone();
    expect(closes).toEqual([[1006, '']]);
    expect(states).toEqual([true, false]);
  });
});
