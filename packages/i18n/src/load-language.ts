import type { Resources } from './locale-bundle.js';
import type { Language } from './language.js';

export { LANGUAGES, DEFAULT_LANGUAGE, toLanguage, type Language } from './language.js';

/**
 * One language's resources, loaded on demand: a bundler gives each language its own chunk, so
 * the console's first load carries only the language it shows, and every namespace added to
 * the product grows that one chunk instead of the first load three times over.
 */
export async function loadLanguageResources(lang: Language): Promise<Resources> {
  switch (lang) {
    case 'zh-CN':
      return (await import('./locales/zh-CN/index.js')).default;
    case 'zh-TW':
      return (await import('./locales/zh-TW/index.js')).default;
    default:
      return (await import('./locales/en-US/index.js')).default;
  }
}

/**
 * The part of a language the console's first paint needs (locales/<lang>/core.ts): the public
 * pages, common words, messages and field errors. A chunk of its own, so a first visit does not
 * wait for every section's strings.
 */
export async function loadLanguageCore(lang: Language): Promise<Resources> {
  switch (lang) {
    case 'zh-CN':
      return (await import('./locales/zh-CN/core.js')).default;
    case 'zh-TW':
      return (await import('./locales/zh-TW/core.js')).default;
    default:
      return (await import('./locales/en-US/core.js')).default;
  }
}
