import { checkedString, type TextFieldOptions } from './field-base.js';

/** MAC addresses: six hex pairs separated by colons, any case; stored lower-case. */
const MAC_COLON = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/i;
const MAC_HYPHEN = /^[0-9a-f]{2}(?:-[0-9a-f]{2}){5}$/i;

/** `xx:xx:xx:xx:xx:xx`, any case. */
export function isMac(text: string): boolean {
  return MAC_COLON.test(text);
}

/**
 * The stored form of a MAC (lower-case, colons); hyphen-separated input as copied from
 * Windows tools is accepted too. Null when the text is not a MAC.
 */
export function normalizeMac(text: string): string | null {
  if (MAC_COLON.test(text)) return text.toLowerCase();
  if (MAC_HYPHEN.test(text)) return text.toLowerCase().replace(/-/g, ':');
  return null;
}

/** Group (multicast/broadcast) addresses have the low bit of the first octet set. */
export function isUnicastMac(text: string): boolean {
  const mac = normalizeMac(text);
  return mac !== null && (parseInt(mac.slice(0, 2), 16) & 1) === 0;
}

export function isZeroMac(text: string): boolean {
  return normalizeMac(text) === '00:00:00:00:00:00';
}

export interface MacFieldOptions extends TextFieldOptions {
  /** Refuse multicast and broadcast addresses (a device's own address, a binding). */
  unicast?: boolean;
}

/**
 * A MAC address value. 00:00:00:00:00:00 is refused: no device has it, and lists treat it as
 * "unset". The parsed value is normalised to lower-case with colons.
 */
export function macField(options: MacFieldOptions = {}) {
  return checkedString((v) => normalizeMac(v) !== null && !isZeroMac(v), 'validation.mac', options)
    .refine((v) => !options.unicast || v === '' || normalizeMac(v) === null || isUnicastMac(v), {
      error: 'validation.macUnicast',
    })
    .overwrite((v) => normalizeMac(v) ?? v);
}
