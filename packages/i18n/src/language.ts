// The language codes are a schema helper (one mapping for the daemon, console and portal).
export { LANGUAGES, DEFAULT_LANGUAGE, toLanguage, type Language } from '@portico/schema';
