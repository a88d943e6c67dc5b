/**
 * Text that may reach a configuration file or a log line. Every free-text field refuses:
 * C0 controls (code < 32, so also CR, LF and TAB), DEL (127), C1 controls (128-159), the
 * Unicode line and paragraph separators, the bidi embedding/override/isolate marks (they make
 * a value display differently from what is stored) and unpaired surrogates (they cannot be
 * written as UTF-8).
 */
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const TEXT_CONTROL_MESSAGE = 'validation.text.control';

/** True when the text is free of control characters, bidi overrides and broken surrogates. */
export function isSafeText(text: string): boolean {
  return !UNSAFE_CHARACTERS.test(text) && !LONE_SURROGATE.test(text);
}

/** Length in Unicode code points, so a CJK character or an emoji counts once. */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Printable ASCII only: space (32) to tilde (126). */
export function isPrintableAscii(text: string): boolean {
  return /^[\x20-\x7e]*$/.test(text);
}
