import enUS from './locales/en-US/portal.json';
import zhCN from './locales/zh-CN/portal.json';
import zhTW from './locales/zh-TW/portal.json';

export { LANGUAGES, toLanguage, type Language } from './language.js';

/**
 * Only the portal's strings: the captive portal bundle stays small and never carries the
 * admin console's texts.
 */
export const portalResources = {
  'en-US': { portal: enUS },
  'zh-CN': { portal: zhCN },
  'zh-TW': { portal: zhTW },
} as const;
