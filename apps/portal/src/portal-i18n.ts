import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { LANGUAGES, portalResources, toLanguage, type Language } from '@portico/i18n/portal';

export { LANGUAGES, type Language };

export type TranslateValues = Record<string, string | number>;
export type Translate = (key: string, values?: TranslateValues) => string;

const STORAGE_KEY = 'portico.portal.lang';

/** Reads a dotted key from nested resources; the key itself shows when a string is missing. */
function lookup(tree: unknown, key: string): string | undefined {
  let node: unknown = tree;
  for (const part of key.split('.')) {
    if (!node || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'string' ? node : undefined;
}

/** Whether `key` (with its `portal.` prefix) names a string of the portal namespace. */
export function hasPortalKey(key: string): boolean {
  return key.startsWith('portal.') && lookup(portalResources['en-US'].portal, key.slice('portal.'.length)) !== undefined;
}

export function createTranslate(lang: Language): Translate {
  const strings = portalResources[lang].portal;
  return (key, values) => {
    const text = lookup(strings, key.replace(/^portal\./, '')) ?? key;
    return values ? text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole)) : text;
  };
}

/**
 * The language a visitor sees first: an explicit earlier choice, else the browser's preference
 * list (navigator.languages mirrors the Accept-Language header), else English.
 */
export function pickLanguage(stored: string | null, browserLanguages: readonly string[]): Language {
  const chosen = toLanguage(stored);
  if (chosen) return chosen;
  for (const code of browserLanguages) {
    const lang = toLanguage(code) ?? toLanguage(code.split('-')[0]);
    if (lang) return lang;
  }
  return 'en-US';
}

// Storage may be disabled (private modes, strict captive browsers); the portal works without it.
export function readStoredLanguage(): string | null {
  try {
    return globalThis.localStorage?.getItem(STORAGE_KEY) ?? null;
  } catch {
    return null;
  }
}

export function storeLanguage(lang: Language): void {
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, lang);
  } catch {
    /* the choice then lasts for this page view only */
  }
}

export function browserLanguages(): readonly string[] {
  const nav = globalThis.navigator;
  if (!nav) return [];
  return nav.languages?.length ? nav.languages : nav.language ? [nav.language] : [];
}

export interface I18nContextValue {
  lang: Language;
  t: Translate;
}

export const I18nContext = createContext<I18nContextValue>({ lang: 'en-US', t: createTranslate('en-US') });

export function useI18n(): I18nContextValue {
  return useContext(I18nContext);
}
