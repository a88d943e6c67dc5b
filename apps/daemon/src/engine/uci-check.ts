import { parseUci, UciError } from './uci-format.js';

/**
 * The `uci` checker: a candidate /etc/config file must parse as UCI before it replaces the old
 * one (OpenWrt has no dry-run of its own that reads a file outside /etc/config). Returns the
 * problem, or null for a file that parses.
 */
export function checkUci(content: string): string | null {
  if (content.includes('\0')) return 'NUL byte';
  try {
    parseUci(content);
    return null;
  } catch (error) {
    if (error instanceof UciError) return error.message;
    throw error;
  }
}
