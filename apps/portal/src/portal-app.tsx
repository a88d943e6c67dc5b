/** @jsxImportSource preact */
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { AuthPortalPage } from './pages/auth-portal-page.js';
import { AuthSuccessPage } from './pages/auth-success-page.js';
import { ExpiredNoticePage, LocalNoticePage } from './pages/notice-page.js';
import { UserChangePasswordPage, UserDonePage, UserLoginPage, UserManagePage, UserRegisterPage } from './pages/user-pages.js';
import { browserLanguages, createTranslate, I18nContext, LANGUAGES, pickLanguage, readStoredLanguage, storeLanguage, type Language } from './portal-i18n.js';
import { currentLocation, NavigationContext, type PortalLocation } from './portal-navigation.js';
import { resolvePage, type PortalPage } from './portal-routes.js';

const PAGES: Record<Exclude<PortalPage, 'notAvailable'>, () => preact.JSX.Element | null> = {
  authPortal: AuthPortalPage,
  authSuccess: AuthSuccessPage,
  noticeExpired: ExpiredNoticePage,
  noticeLocal: LocalNoticePage,
  userLogin: UserLoginPage,
  userRegister: UserRegisterPage,
  userCpwd: UserChangePasswordPage,
  userMgr: UserManagePage,
  userMgrsuc: UserDonePage,
};

export function PortalApp() {
  const [lang, setLang] = useState<Language>(() => pickLanguage(readStoredLanguage(), browserLanguages()));
  const [location, setLocation] = useState<PortalLocation>(currentLocation);
  const i18n = useMemo(() => ({ lang, t: createTranslate(lang) }), [lang]);
  const { t } = i18n;

  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = t('portal.title');
  }, [lang, t]);

  useEffect(() => {
    const onPop = () => setLocation(currentLocation());
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);

  const navigate = useCallback((to: string) => {
    history.pushState(null, '', to);
    setLocation(currentLocation());
    globalThis.scrollTo?.(0, 0);
  }, []);
  const navigation = useMemo(() => ({ location, navigate }), [location, navigate]);

  const page = resolvePage(location.pathname);
  const Page = page && page !== 'notAvailable' ? PAGES[page] : null;
  return (
    <I18nContext.Provider value={i18n}>
      <NavigationContext.Provider value={navigation}>
        {/* The landing page shows the venue's own header; the bar only carries the language there. */}
        <header class={page === 'authPortal' ? 'bar bar-over' : 'bar'}>
          {page !== 'authPortal' && <span class="bar-title">{t('portal.title')}</span>}
          <label class="lang">
            <span class="visually-hidden">{t('portal.language')}</span>
            <select
              data-testid="portal-lang"
              value={lang}
              onChange={(event) => {
                const next = pickLanguage((event.currentTarget as HTMLSelectElement).value, []);
                storeLanguage(next);
                setLang(next);
              }}
            >
              {LANGUAGES.map((code) => (
                <option key={code} value={code}>
                  {t(`portal.languageName.${code}`)}
                </option>
              ))}
            </select>
          </label>
        </header>
        <main class="portal" key={location.pathname}>
          {Page ? (
            <Page />
          ) : (
            <p class="message" data-testid={page ? 'portal-not-available' : 'portal-not-found'}>
              {page ? t('portal.notAvailable') : t('portal.notFound')}
            </p>
          )}
        </main>
      </NavigationContext.Provider>
    </I18nContext.Provider>
  );
}
