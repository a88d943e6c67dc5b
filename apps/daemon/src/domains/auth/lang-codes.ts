import type { FastifyRequest } from 'fastify';
import { DEFAULT_LANGUAGE, fromAcceptLanguage, toLanguage, type Language } from '@portico/schema';
import { LANG_COOKIE } from '../../plugins/session-cookie.js';

export { LANGUAGES, toLanguage, type Language } from '@portico/schema';

/** The account's choice, else the language cookie, else the browser's, else the default. */
export function requestLanguage(request: FastifyRequest, accountLang?: string | null): Language {
  return (
    toLanguage(accountLang) ??
    toLanguage(request.cookies[LANG_COOKIE]) ??
    fromAcceptLanguage(request.headers['accept-language']) ??
    DEFAULT_LANGUAGE
  );
}
