import { describe, expect, it } from 'vitest';
import { isMac, isUnicastMac, randomMac, RANDOM_MAC_MAX_ATTEMPTS, type RandomByteSource } from '../src/index.js';

const MAC_FORMAT = /^00(:[0-9a-f]{2}){5}$/;

/** A source that returns the queued byte patterns in turn, then repeats the last one. */
function scripted(...fills: number[]): RandomByteSource & { calls: number } {
  const source = Object.assign(
    (target: Uint8Array) => {
      target.fill(fills[Math.min(source.calls, fills.length - 1)]!);
      source.calls++;
    },
    { calls: 0 },
  );
  return source;
}

describe('randomMac', () => {
  it('starts with 00 and is six lower-case hex octets', () => {
    for (let i = 0; i < 200; i++) {
      const mac = randomMac();
      expect(mac).toMatch(MAC_FORMAT);
      expect(isMac(mac) && isUnicastMac(mac), mac).toBe(true);
    }
  });

  it('uses the injected random source for the last five octets', () => {
    expect(randomMac(scripted(0x5a))).toBe('00:5a:5a:5a:5a:5a');
    let next = 1;
    const counting: RandomByteSource = (target) => {
      for (let i = 0; i < target.length; i++) target[i] = next++;
    };
    expect(randomMac(counting)).toBe('00:01:02:03:04:05');
  });

  it('retries when the source produces 00:ff:ff:ff:ff:ff', () => {
    const source = scripted(0xff, 0xff, 0x12);
    expect(randomMac(source)).toBe('00:12:12:12:12:12');
    expect(source.calls).toBe(3);
  });

  it('retries when the source produces the all-zero address', () => {
    const source = scripted(0x00, 0x34);
    expect(randomMac(source)).toBe('00:34:34:34:34:34');
    expect(source.calls).toBe(2);
  });

  it('gives up on a source stuck on the forbidden address instead of looping', () => {
    const stuck = scripted(0xff);
    expect(() => randomMac(stuck)).toThrow(/reserved addresses/);
    expect(stuck.calls).toBe(RANDOM_MAC_MAX_ATTEMPTS);
  });

  it('draws 1000 different addresses', () => {
    const draws = new Set(Array.from({ length: 1000 }, () => randomMac()));
    expect(draws.size).toBe(1000);
    expect(draws.has('00:ff:ff:ff:ff:ff')).toBe(false);
  });
});
