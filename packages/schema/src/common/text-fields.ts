import { checkedString, stringBase, type TextFieldOptions } from './field-base.js';
import { codePointLength, isPrintableAscii, isSafeText, TEXT_CONTROL_MESSAGE } from './text-guard.js';
import { NAME_MAX } from './account-fields.js';

/**
 * Free-text and host-name fields. Every one of them refuses control characters, newlines and
 * bidi overrides (text-guard.ts): these values end up in config files and logs.
 */

/** A display name: required, trimmed, at most 32 characters (spec §5). */
export function nameField() {
  return stringBase()
    .trim()
    .min(1, { error: 'validation.required' })
    .refine(isSafeText, { error: TEXT_CONTROL_MESSAGE })
    .refine((v) => codePointLength(v) <= NAME_MAX, { error: 'validation.name.length' });
}

/** Shared secrets (RADIUS, IPsec PSK, L2TP secret): 1-255 printable ASCII characters. */
export const SHARED_KEY_MAX = 255;

export function sharedKeyField() {
  return stringBase()
    .min(1, { error: 'validation.required' })
    .refine(isSafeText, { error: TEXT_CONTROL_MESSAGE })
    .refine(isPrintableAscii, { error: 'validation.sharedKey.chars' })
    .max(SHARED_KEY_MAX, { error: 'validation.sharedKey.length' });
}

/**
 * One line of text of at most `max` characters (comments, welcome texts, remarks). Empty is
 * allowed; add `.min(1, { error: 'validation.required' })` where a value is needed.
 */
export function plainTextField(max: number) {
  return stringBase()
    .refine(isSafeText, { error: TEXT_CONTROL_MESSAGE })
    .refine((v) => codePointLength(v) <= max, { error: 'validation.text.length' });
}

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
export const HOSTNAME_MAX = 253;

/**
 * RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, 1-63
 * characters each (a leading digit is allowed), at most 253 in all.
 */
export function isHostname(text: string): boolean {
  if (text.length === 0 || text.length > HOSTNAME_MAX) return false;
  return text.split('.').every((label) => LABEL.test(label));
}

/**
 * A fully qualified domain name: at least two labels, a top-level label that is not all
 * digits (so an IPv4 address is not a domain). With `wildcard`, `*.example.com` is accepted.
 */
export function isDomain(text: string, options: { wildcard?: boolean } = {}): boolean {
  const name = options.wildcard && text.startsWith('*.') ? text.slice(2) : text;
  if (!isHostname(name)) return false;
  const labels = name.split('.');
  return labels.length >= 2 && /[A-Za-z]/.test(labels[labels.length - 1]!);
}

export function hostnameField(options: TextFieldOptions = {}) {
  return checkedString(isHostname, 'validation.hostname', options);
}

export interface DomainFieldOptions extends TextFieldOptions {
  wildcard?: boolean;
}

export function domainField(options: DomainFieldOptions = {}) {
  return checkedString((v) => isDomain(v, options), 'validation.domain', options);
}
