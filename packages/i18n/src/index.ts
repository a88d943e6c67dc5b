import enUS from './locales/en-US/index.js';
import zhCN from './locales/zh-CN/index.js';
import zhTW from './locales/zh-TW/index.js';

export { flatten, type Resources } from './locale-bundle.js';
export { LANGUAGES, DEFAULT_LANGUAGE, toLanguage, type Language } from './language.js';

export const resources = { 'en-US': enUS, 'zh-CN': zhCN, 'zh-TW': zhTW } as const;
