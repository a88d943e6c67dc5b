import type { Filter } from 'ldapts';

/**
 * Escaping of a user name before it becomes part of a DN or a search filter. User names are
 * typed by whoever stands in front of the portal, so they are hostile input: unescaped, a
 * `*` or `)` would widen a search (filter injection) and a `,` would bind another entry.
 */

/** At most this many characters of a user name are accepted. */
export const LDAP_USER_MAX = 64;

// C0 and C1 controls, DEL, line/paragraph separators and bidi marks never form a user name.
// eslint-disable-next-line no-control-regex
const UNFIT = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether `name` may be tried at all: 1 to 64 characters, no control or bidi characters, not only spaces. */
export function isLdapUserName(name: string): boolean {
  const length = [...name].length;
  return length >= 1 && length <= LDAP_USER_MAX && !UNFIT.test(name) && name.trim() !== '' && !LONE_SURROGATE.test(name);
}

/**
 * An attribute value as it stands in a DN string (RFC 4514 §2.4): `"`, `+`, `,`, `;`, `<`,
 * `>` and `\` are escaped everywhere, a leading `#` or space and a trailing space too, NUL as
 * `\00`. ldapts's own RDN writer quotes values with outer spaces instead (the RFC 2253 form),
 * which RFC 4514 no longer allows, hence this one.
 */
export function escapeDnValue(value: string): string {
  let out = '';
  const chars = [...value];
  chars.forEach((ch, i) => {
    if (ch === '\u0000') out += '\\00';
    else if ('"+,;<>\\'.includes(ch)) out += `\\${ch}`;
    else if (i === 0 && (ch === '#' || ch === ' ')) out += `\\${ch}`;
    else if (i === chars.length - 1 && ch === ' ') out += '\\ ';
    else out += ch;
  });
  return out;
}

/**
 * ldapts's filter class, handed over by whoever loaded ldapts: the library is imported at the
 * first sign-in (ldap-auth.ts), not with the daemon, so this file does not import it.
 */
export type LdapFilterClass = Pick<typeof Filter, 'escape'>;

/** An assertion value in a filter string (RFC 4515 §3): `*`, `(`, `)`, `\` and NUL as `\XX`; ldapts's escaper. */
export function escapeFilterValue(filter: LdapFilterClass, value: string): string {
  return filter.escape(value);
}

/** The DN a DN template names for `user` (its one `%s`, replaced by the escaped name). */
export function dnFromTemplate(template: string, user: string): string {
  const at = template.indexOf('%s');
  if (at < 0 || template.indexOf('%s', at + 2) >= 0) throw new Error('a DN template has exactly one %s');
  return template.slice(0, at) + escapeDnValue(user) + template.slice(at + 2);
}

/** The filter that finds the entry of `user` by `attribute` (validated by the settings' schema). */
export function userFilter(filter: LdapFilterClass, attribute: string, user: string): string {
  if (!/^[A-Za-z][A-Za-z0-9-]{0,63}$/.test(attribute)) throw new Error('attribute');
  return `(${attribute}=${escapeFilterValue(filter, user)})`;
}
