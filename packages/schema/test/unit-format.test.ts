import { describe, expect, it } from 'vitest';
import { formatBitRate, formatBytes, formatSpeed, scaleToUnits, BYTE_UNITS } from '../src/index.js';

describe('formatBytes', () => {
  it('steps by 1024 by default with one decimal', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KB');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(1024 ** 2 * 5.25)).toBe('5.3 MB');
    expect(formatBytes(1024 ** 3)).toBe('1.0 GB');
    expect(formatBytes(1024 ** 4 * 2)).toBe('2.0 TB');
  });

  it('steps by 1000 when asked, with three decimals', () => {
    expect(formatBytes(1000, { base: 1000 })).toBe('1.0 KB');
    expect(formatBytes(1000, { base: 1024 })).toBe('1000 B');
    expect(formatBytes(1536, { base: 1000, decimals: 3 })).toBe('1.536 KB');
    expect(formatBytes(1536, { base: 1024, decimals: 3 })).toBe('1.500 KB');
    expect(formatBytes(2_500_000, { base: 1000, decimals: 1 })).toBe('2.5 MB');
    expect(formatBytes(2_500_000, { base: 1024, decimals: 3 })).toBe('2.384 MB');
  });

  it('moves to the next unit when rounding reaches the step', () => {
    expect(formatBytes(1024 * 1023.96)).toBe('1.0 MB');
    expect(formatBytes(999_999, { base: 1000 })).toBe('1.0 MB');
    expect(formatBytes(999_999, { base: 1000, decimals: 3 })).toBe('999.999 KB');
  });

  it('stays in TB above it, keeps the sign, and marks non-numbers', () => {
    expect(formatBytes(1024 ** 5)).toBe('1024.0 TB');
    expect(formatBytes(-2048)).toBe('-2.0 KB');
    expect(formatBytes(Number.NaN)).toBe('-');
    expect(scaleToUnits(1536, BYTE_UNITS)).toEqual({ value: 1.5, unit: 'KB', text: '1.5' });
  });
});

describe('formatSpeed and formatBitRate', () => {
  it('bytes per second from B/s to TB/s', () => {
    expect(formatSpeed(512)).toBe('512 B/s');
    expect(formatSpeed(2048)).toBe('2.0 KB/s');
    expect(formatSpeed(1024 ** 2 * 12.5)).toBe('12.5 MB/s');
    expect(formatSpeed(1024 ** 3 * 3)).toBe('3.0 GB/s');
    expect(formatSpeed(1024 ** 4)).toBe('1.0 TB/s');
    expect(formatSpeed(1500, { base: 1000, decimals: 3 })).toBe('1.500 KB/s');
  });

  it('bits per second from Kbps to Tbps in steps of 1000', () => {
    expect(formatBitRate(500)).toBe('0.5 Kbps');
    expect(formatBitRate(64_000)).toBe('64.0 Kbps');
    expect(formatBitRate(100_000_000)).toBe('100.0 Mbps');
    expect(formatBitRate(1_000_000_000)).toBe('1.0 Gbps');
    expect(formatBitRate(2_500_000_000_000, { decimals: 3 })).toBe('2.500 Tbps');
    expect(formatBitRate(Number.POSITIVE_INFINITY)).toBe('-');
  });
});
