import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, LANGUAGES, resources, type Language } from '@portico/i18n';
import { pickLanguage, readStoredLanguage, storeLanguage } from './language-choice.js';

/**
 * One i18next instance for the console. The three bundles are small, so all are loaded at
 * start and switching language never waits for the network. Keys are dotted paths into the
 * bundle (`common.requestFailed`, `msg.loginWrong`), the same keys the daemon sends.
 */
export const i18n = i18next.createInstance();

function browserStorage(): Storage | undefined {
  return typeof window === 'undefined' ? undefined : window.localStorage;
}

function browserLanguages(): readonly string[] {
  return typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language];
}

void i18n.use(initReactI18next).init({
  resources: Object.fromEntries(LANGUAGES.map((lang) => [lang, { translation: resources[lang] }])),
  lng: pickLanguage({ stored: readStoredLanguage(browserStorage()), browser: browserLanguages() }),
  fallbackLng: DEFAULT_LANGUAGE,
  supportedLngs: [...LANGUAGES],
  // React escapes everything it renders.
  interpolation: { escapeValue: false },
  returnNull: false,
  initAsync: false,
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

/** Switches the console's language and remembers it in this browser. */
export async function applyLanguage(lang: Language, remember: boolean): Promise<void> {
  if (remember) storeLanguage(browserStorage(), lang);
  if (i18n.language !== lang) await i18n.changeLanguage(lang);
}

/** Adopts the device's language unless this browser remembers an explicit choice. */
export async function adoptServerLanguage(server: string | null | undefined): Promise<void> {
  if (readStoredLanguage(browserStorage())) return;
  const lang = pickLanguage({ server, browser: browserLanguages() });
  if (i18n.language !== lang) await i18n.changeLanguage(lang);
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
