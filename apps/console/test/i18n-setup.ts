import { LANGUAGES } from '@portico/i18n/load';
import { i18n, i18nReady, loadAllStrings } from '../src/i18n/console-i18n.js';

// Tests render in every language and ask whether keys exist in each: load them all up front,
// as a console that has switched through all three would have them.
await i18nReady;
await i18n.loadLanguages([...LANGUAGES]);
await Promise.all(LANGUAGES.map((lang) => loadAllStrings(lang)));
