/**
 * Byte, speed and bit-rate formatting (spec §9). Unit symbols are the same in every UI
 * language, so these return finished strings.
 */
export const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;
export const SPEED_UNITS = ['B/s', 'KB/s', 'MB/s', 'GB/s', 'TB/s'] as const;
export const BIT_RATE_UNITS = ['Kbps', 'Mbps', 'Gbps', 'Tbps'] as const;

export interface UnitFormatOptions {
  /** Step between units: 1024 (default) or 1000. */
  base?: 1000 | 1024;
  /** Decimals shown for every unit above the first: 1 (default) or 3. */
  decimals?: 1 | 3;
}

export interface ScaledValue {
  /** The value in `unit`, already rounded to the requested decimals. */
  value: number;
  unit: string;
  /** The rounded value as text. */
  text: string;
}

/**
 * Scales `n` into the largest unit that keeps it at or above 1. Values that round up to the
 * next step (1023.96 KB at one decimal) move to the next unit, so "1024.0 KB" never shows.
 * `wholeFirstUnit` prints the first unit without decimals (bytes are whole).
 */
export function scaleToUnits(
  n: number,
  units: readonly string[],
  options: UnitFormatOptions & { wholeFirstUnit?: boolean } = {},
): ScaledValue | null {
  if (!Number.isFinite(n)) return null;
  const base = options.base ?? 1024;
  const decimals = options.decimals ?? 1;
  const sign = n < 0 ? -1 : 1;
  let value = Math.abs(n);
  let index = 0;
  while (index < units.length - 1 && value >= base) {
    value /= base;
    index++;
  }
  const digitsFor = (i: number) => (i === 0 && options.wholeFirstUnit ? 0 : decimals);
  let text = value.toFixed(digitsFor(index));
  if (Number(text) >= base && index < units.length - 1) {
    value /= base;
    index++;
    text = value.toFixed(digitsFor(index));
  }
  const rounded = Number(text) * sign;
  return { value: rounded, unit: units[index]!, text: sign < 0 && Number(text) !== 0 ? `-${text}` : text };
}

/** Shown for values that are not numbers (missing counters). */
export const NO_VALUE = '-';

function render(scaled: ScaledValue | null): string {
  return scaled ? `${scaled.text} ${scaled.unit}` : NO_VALUE;
}

/** `1536` -> `1.5 KB` (base 1024), `1536, { base: 1000, decimals: 3 }` -> `1.536 KB`. */
export function formatBytes(n: number, options: UnitFormatOptions = {}): string {
  return render(scaleToUnits(n, BYTE_UNITS, { ...options, wholeFirstUnit: true }));
}

/** Bytes per second: B/s to TB/s. */
export function formatSpeed(bytesPerSecond: number, options: UnitFormatOptions = {}): string {
  return render(scaleToUnits(bytesPerSecond, SPEED_UNITS, { ...options, wholeFirstUnit: true }));
}

/** Bits per second as Kbps to Tbps; line rates step by 1000. */
export function formatBitRate(bitsPerSecond: number, options: Omit<UnitFormatOptions, 'base'> = {}): string {
  if (!Number.isFinite(bitsPerSecond)) return NO_VALUE;
  return render(scaleToUnits(bitsPerSecond / 1000, BIT_RATE_UNITS, { ...options, base: 1000 }));
}
