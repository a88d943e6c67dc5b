import { CAPABILITIES, DEFAULT_CAPABILITY_STRING, type Capability } from '../menu/menu-types.js';

const KNOWN = new Set<string>(CAPABILITIES);

function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[\s,;]+/)
    .filter((t) => t !== '');
}

/**
 * The capability string of the device (spec, general facts): tokens separated by spaces or
 * commas. Unknown tokens are ignored so an older console works with a newer image. Without a
 * string the product default applies; an empty string means no optional features.
 */
export function parseCapabilities(text: string | null | undefined = DEFAULT_CAPABILITY_STRING): Set<Capability> {
  const out = new Set<Capability>();
  for (const token of tokens(text ?? DEFAULT_CAPABILITY_STRING)) {
    if (KNOWN.has(token)) out.add(token as Capability);
  }
  return out;
}

/** Canonical text of a capability set, in declaration order. */
export function formatCapabilities(capabilities: ReadonlySet<Capability>): string {
  return CAPABILITIES.filter((c) => capabilities.has(c)).join(' ');
}

const MODULE_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * The list of disabled menu modules (spec §2), separated by spaces or commas. Tokens that
 * cannot be module names are dropped.
 */
export function parseModuleList(text: string | null | undefined): Set<string> {
  return new Set(tokens(text ?? '').filter((t) => MODULE_NAME.test(t)));
}
