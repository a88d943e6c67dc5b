import type { Language, Translate } from './portal-i18n.js';

/*
 * Small local formatters with the same output as the schema helpers (formatBytes,
 * renderDuration, spec §9): the portal does not depend on @portico/schema, whose entry
 * module also carries the validators, so the captive bundle stays small.
 */

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;
const DURATION_UNITS = [
  ['days', 86400],
  ['hours', 3600],
  ['minutes', 60],
  ['seconds', 1],
] as const;

/** `1536` -> `1.5 KB`; bytes are whole, larger units carry one decimal (base 1024). */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return '-';
  let value = Math.max(0, n);
  let index = 0;
  while (index < BYTE_UNITS.length - 1 && value >= 1024) {
    value /= 1024;
    index++;
  }
  let text = value.toFixed(index === 0 ? 0 : 1);
  // 1023.96 KB rounds to "1024.0 KB": show the next unit instead.
  if (Number(text) >= 1024 && index < BYTE_UNITS.length - 1) {
    value /= 1024;
    index++;
    text = value.toFixed(1);
  }
  return `${text} ${BYTE_UNITS[index]}`;
}

/** Whole seconds as non-zero parts from days to seconds; zero reads "0 s". */
export function formatDuration(totalSeconds: number, t: Translate, lang: Language): string {
  let rest = Number.isFinite(totalSeconds) && totalSeconds > 0 ? Math.floor(totalSeconds) : 0;
  const parts: string[] = [];
  for (const [unit, size] of DURATION_UNITS) {
    const count = Math.floor(rest / size);
    rest %= size;
    if (count > 0) parts.push(t(`portal.duration.${unit}`, { count }));
  }
  if (parts.length === 0) return t('portal.duration.seconds', { count: 0 });
  // Chinese reads "1天2小时"; English "1 d 2 h".
  return parts.join(lang.startsWith('zh') ? '' : ' ');
}

/** Seconds left; null is unlimited. */
export function formatTimeRemaining(seconds: number | null, t: Translate, lang: Language): string {
  return seconds === null ? t('portal.unlimited') : formatDuration(seconds, t, lang);
}

/** Bytes left; null is unlimited. */
export function formatBytesRemaining(bytes: number | null, t: Translate): string {
  return bytes === null ? t('portal.unlimited') : formatBytes(bytes);
}

/** Above this a number is read as epoch milliseconds (as seconds it would be past year 5000). */
const EPOCH_MS_THRESHOLD = 1e11;

/**
 * A due time from the API: epoch seconds or milliseconds, or a date text; 0, '' and null mean no expiry.
 * Text that is not a date is shown as it came (as text, never markup).
 */
export function formatDueTime(value: number | string | null, t: Translate, lang: Language): string {
  if (value === null || value === 0 || value === '') return t('portal.user.noExpiry');
  const date = typeof value === 'number' ? new Date(value > EPOCH_MS_THRESHOLD ? value : value * 1000) : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}
