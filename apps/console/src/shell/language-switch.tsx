import { useEffect } from 'react';
import { Button, Menu } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, type Language } from '@portico/i18n/load';
import { apiPost } from '../api/api-client.js';
import { applyLanguage, currentLanguage } from '../i18n/console-i18n.js';
import { useDeviceLanguageStore } from '../state/device-language-store.js';
import { useSessionStore } from '../state/session-store.js';

/** The vendor fixes the language with the `hidden_language` capability. */
export function languageSwitchHidden(capabilities: readonly string[], hiddenByDevice: boolean): boolean {
  return hiddenByDevice || capabilities.includes('hidden_language');
}

/** The menu itself: the current language on the button, one entry per language. */
export function LanguageMenu({ current, onChoose }: { current: Language; onChoose: (lang: Language) => void }) {
  const { t } = useTranslation();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="subtle" size="compact-sm" data-testid="lang-switch" aria-label={t('common.language')}>
          {t(`common.languages.${current}`)}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{t('common.language')}</Menu.Label>
        {LANGUAGES.map((lang) => (
          <Menu.Item
            key={lang}
            lang={lang}
            data-lang={lang}
            aria-current={lang === current ? 'true' : undefined}
            fw={lang === current ? 700 : undefined}
            onClick={() => onChoose(lang)}
          >
            {t(`common.languages.${lang}`)}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

async function chooseLanguage(lang: Language): Promise<void> {
  await applyLanguage(lang, true);
  useSessionStore.getState().update({ lang });
  // Reported by the client when it fails; the choice still applies in this browser.
  await apiPost('changelang', { lang }).catch(() => undefined);
}

/**
 * Language switch (zh-CN, zh-TW, en-US). The choice applies at once, is remembered in this
 * browser and sent to the device (POST /api/changelang).
 */
export function LanguageSwitch() {
  // useTranslation re-renders this on every language change.
  useTranslation();
  const hiddenByDevice = useDeviceLanguageStore((s) => s.hidden);
  const load = useDeviceLanguageStore((s) => s.load);
  const capabilities = useSessionStore((s) => s.capabilities);

  useEffect(() => {
    void load();
  }, [load]);

  if (languageSwitchHidden(capabilities, hiddenByDevice)) return null;
  return <LanguageMenu current={currentLanguage()} onChoose={(lang) => void chooseLanguage(lang)} />;
}
