export const LANGUAGES = ['zh-CN', 'zh-TW', 'en-US'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en-US';

/** Spec general facts: zh-hans -> zh-CN, en-us -> en-US, zh-hant -> zh-TW. */
export function toLanguage(code: string | null | undefined): Language | null {
  if (!code) return null;
  const c = code.trim().toLowerCase().replace('_', '-');
  if (c === 'zh-hans' || c === 'zh-cn' || c === 'zh-sg' || c === 'zh') return 'zh-CN';
  if (c === 'zh-hant' || c === 'zh-tw' || c === 'zh-hk' || c === 'zh-mo') return 'zh-TW';
  if (c === 'en-us' || c === 'en' || c.startsWith('en-')) return 'en-US';
  return null;
}
