import { describe, expect, test } from 'vitest';
import { MAX_SESSION_SECONDS, octetsAndGigawords, readReply } from '../src/domains/hotspot/radius/radius-reply.js';
import { chapPassword } from '../src/domains/hotspot/radius/radius-client.js';
import { createHash } from 'node:crypto';

/** RADIUS answers are hostile input: each attribute counts only with its exact length and a sane value. */
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const vsa = (vendor: number, type: number, value: Buffer) => Buffer.concat([u32(vendor), Buffer.from([type, value.length + 2]), value]);

describe('reading an Access-Accept or CoA-Request', () => {
  test('the standard limits, WISPr bit/s as kbit/s, ChilliSpot volume with gigawords', () => {
    const reply = readReply([
      [27, u32(3600)],
      [28, u32(600)],
      [85, u32(60)],
      [25, Buffer.from('gold')],
      [26, vsa(14122, 7, u32(512_000))],
      [26, vsa(14122, 8, u32(2_048_001))],
      [26, vsa(14559, 3, u32(1000))],
      [26, vsa(14559, 23, u32(2))],
    ]);
    expect(reply).toEqual({ sessionSeconds: 3600, idleSeconds: 600, interimSeconds: 60, upKbps: 512, downKbps: 2049, totalBytes: 2 * 2 ** 32 + 1000, classes: ['676f6c64'], ignored: 0 });
  });

  test('wrong lengths, zero time-outs and broken vendor attributes are ignored and counted', () => {
    const reply = readReply([
      [27, Buffer.from([0, 1])],
      [27, u32(0)],
      [28, Buffer.alloc(5)],
      [85, u32(0)],
      [25, Buffer.alloc(0)],
      [26, Buffer.from([0, 0, 0x37, 0x0a, 7, 9, 1])],
      [26, Buffer.from([0, 0])],
      [26, vsa(14122, 7, Buffer.from([1, 2]))],
      [26, vsa(14988, 8, Buffer.from('unlimited'))],
    ]);
    expect(reply.sessionSeconds).toBeUndefined();
    expect(reply.idleSeconds).toBeUndefined();
    expect(reply.interimSeconds).toBeUndefined();
    expect(reply.upKbps).toBeUndefined();
    expect(reply.classes).toEqual([]);
    expect(reply.ignored).toBe(9);
  });

  test('values past the device limits are clamped: 20 days, interim 10-300 s, 10 Gbit/s', () => {
    const reply = readReply([
      [27, u32(0xffffffff)],
      [85, u32(1)],
      [26, vsa(14559, 4, u32(0xffffffff))],
    ]);
    expect(reply.sessionSeconds).toBe(MAX_SESSION_SECONDS);
    expect(reply.interimSeconds).toBe(10);
    expect(reply.upKbps).toBe(10_000_000);
    expect(readReply([[85, u32(86400)]]).interimSeconds).toBe(300);
  });

  test('MikroTik Rate-Limit: rx/tx from the client side, units, burst parts left out; the tightest limit wins', () => {
    expect(readReply([[26, vsa(14988, 8, Buffer.from('512k/2M 1M/4M 256k/1M 10/10'))]])).toMatchObject({ upKbps: 512, downKbps: 2000 });
    expect(readReply([[26, vsa(14988, 8, Buffer.from('3M'))]])).toMatchObject({ upKbps: 3000, downKbps: 3000 });
    expect(readReply([[26, vsa(14988, 8, Buffer.from('1M/8M'))], [26, vsa(14122, 8, u32(4_000_000))]])).toMatchObject({ upKbps: 1000, downKbps: 4000 });
    expect(readReply([[26, vsa(14988, 17, u32(5))], [26, vsa(14988, 18, u32(1))]]).totalBytes).toBe(2 ** 32 + 5);
  });

  test('octets and gigawords of a counter', () => {
    expect(octetsAndGigawords(5 * 2 ** 30)).toEqual({ octets: 2 ** 30, gigawords: 1 });
    expect(octetsAndGigawords(2 ** 32 - 1)).toEqual({ octets: 2 ** 32 - 1, gigawords: 0 });
    expect(octetsAndGigawords(-4)).toEqual({ octets: 0, gigawords: 0 });
  });

  test('CHAP-Password is the id and MD5(id, password, challenge) (RFC 1994)', () => {
    const challenge = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const value = chapPassword('secret', challenge, 7);
    expect(value[0]).toBe(7);
    expect(value.subarray(1)).toEqual(createHash('md5').update(Buffer.concat([Buffer.from([7]), Buffer.from('secret'), challenge])).digest());
  });
});
