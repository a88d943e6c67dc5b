/** UI languages (spec, general facts), in the order the language menu lists them. */
export const LANGUAGES = ['zh-CN', 'zh-TW', 'en-US'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en-US';

/** zh-hans -> zh-CN, zh-hant -> zh-TW, en-us -> en-US; regional variants map to their script. */
export function toLanguage(code: string | null | undefined): Language | null {
  if (typeof code !== 'string') return null;
  const c = code.trim().toLowerCase().replace('_', '-');
  if (c === 'zh-hans' || c === 'zh-cn' || c === 'zh-sg' || c === 'zh' || c === 'zh-hans-cn') return 'zh-CN';
  if (c === 'zh-hant' || c === 'zh-tw' || c === 'zh-hk' || c === 'zh-mo' || c === 'zh-hant-tw') return 'zh-TW';
  if (c === 'en' || c === 'en-us' || c.startsWith('en-')) return 'en-US';
  return null;
}

/** First supported language of an Accept-Language header, by quality. */
export function fromAcceptLanguage(header: string | undefined): Language | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag ?? '', q: q === undefined ? 1 : Number(q) };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const entry of ranked) {
    const lang = toLanguage(entry.tag);
    if (lang) return lang;
  }
  return null;
}
