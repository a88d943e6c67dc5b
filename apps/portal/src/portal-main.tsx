/** @jsxImportSource preact */
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { portalResources, LANGUAGES, toLanguage, type Language } from '@portico/i18n/portal';
import { isPortalPage } from './portal-routes.js';

const STORAGE_KEY = 'portico.lang';

function initialLanguage(): Language {
  const stored = toLanguage(localStorage.getItem(STORAGE_KEY));
  return stored ?? toLanguage(navigator.language) ?? 'en-US';
}

function PortalApp() {
  const [lang, setLang] = useState<Language>(initialLanguage);
  const strings = portalResources[lang].portal as Record<string, unknown>;
  const t = (key: string) => lookup(strings, key.replace(/^portal\./, ''));
  document.documentElement.lang = lang;
  const known = isPortalPage(location.pathname);
  return (
    <main class="portal">
      <header>
        <h1>{t('portal.title')}</h1>
        <select
          aria-label={t('portal.language')}
          data-testid="portal-lang"
          value={lang}
          onChange={(e) => {
            const next = toLanguage((e.target as HTMLSelectElement).value) ?? 'en-US';
            localStorage.setItem(STORAGE_KEY, next);
            setLang(next);
          }}
        >
          {LANGUAGES.map((l) => (
            <option key={l} value={l}>
              {t(`portal.languageName.${l}`)}
            </option>
          ))}
        </select>
      </header>
      <p data-testid={known ? 'portal-not-available' : 'portal-not-found'}>
        {known ? t('portal.notAvailable') : t('portal.notFound')}
      </p>
    </main>
  );
}

render(<PortalApp />, document.getElementById('portal')!);

/** Reads a dotted key from nested resources; the key itself is shown when a string is missing. */
function lookup(tree: Record<string, unknown>, key: string): string {
  let node: unknown = tree;
  for (const part of key.split('.')) {
    if (!node || typeof node !== 'object') return key;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'string' ? node : key;
}
