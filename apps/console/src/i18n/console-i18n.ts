import { use } from 'react';
import i18next, { type BackendModule, type TFunction } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, LANGUAGES, loadLanguageCore, loadLanguageResources, toLanguage, type Language } from '@portico/i18n/load';
import { pickLanguage, readStoredLanguage, storeLanguage } from './language-choice.js';

/**
 * One i18next instance for the console. Keys are dotted paths into the bundle
 * (`common.requestFailed`, `msg.loginWrong`), the same keys the daemon sends.
 *
 * Each language is two chunks, loaded when it is first shown: its core (the public pages, common
 * words, messages and field errors) before the first paint, and the sections' strings after it,
 * waited for behind the sign-in (`useAllStrings`). A switch waits for both before the console
 * changes language. Every language has every key (packages/i18n tests), so no fallback
 * language is loaded beside it.
 */
export const i18n = i18next.createInstance();

const languageChunks: BackendModule = {
  type: 'backend',
  init() {},
  read(language, _namespace, callback) {
    loadLanguageCore(toLanguage(language) ?? DEFAULT_LANGUAGE).then(
      (resources) => callback(null, resources),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), false),
    );
  },
};

function browserStorage(): Storage | undefined {
  return typeof window === 'undefined' ? undefined : window.localStorage;
}

function browserLanguages(): readonly string[] {
  return typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language];
}

/** Settles once the first language is loaded; the console renders after it. */
export const i18nReady: Promise<unknown> = i18n
  .use(languageChunks)
  .use(initReactI18next)
  .init({
    lng: pickLanguage({ stored: readStoredLanguage(browserStorage()), browser: browserLanguages() }),
    fallbackLng: false,
    supportedLngs: [...LANGUAGES],
    load: 'currentOnly',
    // React escapes everything it renders.
    interpolation: { escapeValue: false },
    returnNull: false,
    showSupportNotice: false,
  });

function reflectLanguage(lang: string): void {
  if (typeof document !== 'undefined') document.documentElement.lang = lang;
}
reflectLanguage(i18n.language);
i18n.on('languageChanged', reflectLanguage);

export function currentLanguage(): Language {
  return (LANGUAGES as readonly string[]).includes(i18n.language) ? (i18n.language as Language) : DEFAULT_LANGUAGE;
}

const allStrings = new Map<Language, Promise<void>>();

/**
 * Every string of a language (all sections), added to the one i18next instance once; a failed
 * load is tried again on the next call. The same promise each time, so `use()` can wait on it.
 */
export function loadAllStrings(lang: Language): Promise<void> {
  let loading = allStrings.get(lang);
  if (!loading) {
    loading = loadLanguageResources(lang).then((resources) => {
      i18n.addResourceBundle(lang, 'translation', resources, true, true);
    });
    loading.catch(() => allStrings.delete(lang));
    allStrings.set(lang, loading);
  }
  return loading;
}

/** Suspends until every string of the shown language is there: the pages behind the sign-in. */
export function useAllStrings(): void {
  use(loadAllStrings(currentLanguage()));
}

/** Switches the console's language and remembers it in this browser. */
export async function applyLanguage(lang: Language, remember: boolean): Promise<void> {
  if (remember) storeLanguage(browserStorage(), lang);
  if (i18n.language !== lang) {
    await loadAllStrings(lang);
    await i18n.changeLanguage(lang);
  }
}

/** Adopts the device's language unless this browser remembers an explicit choice. */
export async function adoptServerLanguage(server: string | null | undefined): Promise<void> {
  if (readStoredLanguage(browserStorage())) return;
  const lang = pickLanguage({ server, browser: browserLanguages() });
  if (i18n.language !== lang) {
    await loadAllStrings(lang);
    await i18n.changeLanguage(lang);
  }
}

/** Translates a message key; an unknown key falls back to the generic failure text. */
export function translateMessage(key: string | undefined): string {
  if (key && i18n.exists(key)) return i18n.t(key);
  return i18n.t('common.requestFailed');
}

/** Translates a field error key; a key this build has no text for reads as "not valid". */
export function translateFieldError(key: string): string {
  return i18n.exists(key) ? i18n.t(key) : i18n.t('validation.invalid');
}

/**
 * A value the device reports from a known set (a route type, an interface role) in the
 * reader's language: `<prefix>.<value>` when this build has a label for it, else the value as
 * the device gave it (a routing protocol number, a new kind).
 */
export function valueLabel(t: TFunction, prefix: string, value: string): string {
  // Only a plain word can be a key: anything else (`:` or `.` would split it) is shown as it is.
  return /^[A-Za-z0-9_-]+$/.test(value) ? t(`${prefix}.${value}`, { defaultValue: value }) : value;
}
