import { DEFAULT_LANGUAGE, toLanguage, type Language } from '@portico/i18n/load';

/** Where the console remembers the language the administrator picked. */
export const LANGUAGE_STORAGE_KEY = 'portico.lang';

export interface LanguageSources {
  /** What this browser remembered from an earlier choice. */
  stored?: string | null;
  /** The language the device reports for the session (GET /api/changelang, login reply). */
  server?: string | null;
  /** The browser's preferred languages, best first. */
  browser?: readonly string[];
}

/**
 * The language to show: an explicit earlier choice wins, then the device's setting, then
 * the browser's preference, then the default. Codes are mapped as the spec says
 * (zh-hans -> zh-CN, zh-hant -> zh-TW, en-us -> en-US).
 */
export function pickLanguage(sources: LanguageSources): Language {
  const candidates = [sources.stored, sources.server, ...(sources.browser ?? [])];
  for (const code of candidates) {
    const lang = toLanguage(code);
    if (lang) return lang;
  }
  return DEFAULT_LANGUAGE;
}

/** Storage can be absent or refuse access (private modes, sandboxed frames). */
export function readStoredLanguage(storage: Pick<Storage, 'getItem'> | undefined): Language | null {
  try {
    return toLanguage(storage?.getItem(LANGUAGE_STORAGE_KEY));
  } catch {
    return null;
  }
}

export function storeLanguage(storage: Pick<Storage, 'setItem'> | undefined, lang: Language): void {
  try {
    storage?.setItem(LANGUAGE_STORAGE_KEY, lang);
  } catch {
    // The choice still applies to this page; it is just not remembered.
  }
}
