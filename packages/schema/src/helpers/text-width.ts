/**
 * Display width of text (spec §5 helper rules): a character with code 1-127 counts 1, any
 * other character counts 2 (CJK glyphs are about twice as wide as Latin ones). Characters are
 * code points, so an emoji made of a surrogate pair counts once.
 */
export function charWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  return code >= 1 && code <= 127 ? 1 : 2;
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += charWidth(char);
  return width;
}

export const ELLIPSIS = '…';

/**
 * Text that fits `width`. Over-wide text is cut and ends with an ellipsis; the ellipsis
 * counts toward the width. When the width cannot even hold the ellipsis, the longest
 * prefix that fits is returned without it.
 */
export function truncateToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  const ellipsisWidth = displayWidth(ELLIPSIS);
  const room = width >= ellipsisWidth ? width - ellipsisWidth : width;
  let used = 0;
  let out = '';
  for (const char of text) {
    const w = charWidth(char);
    if (used + w > room) break;
    used += w;
    out += char;
  }
  return width >= ellipsisWidth ? out + ELLIPSIS : out;
}
