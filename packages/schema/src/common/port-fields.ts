import { checkedString, integerInRange, type TextFieldOptions } from './field-base.js';

export const PORT_MIN = 1;
export const PORT_MAX = 65535;
/** Tunnel server port (spec §5): 1024-65500, default 4443. */
export const TUNNEL_PORT_MIN = 1024;
export const TUNNEL_PORT_MAX = 65500;
export const TUNNEL_PORT_DEFAULT = 4443;

export function isPort(value: number): boolean {
  return Number.isInteger(value) && value >= PORT_MIN && value <= PORT_MAX;
}

export function portField() {
  return integerInRange(PORT_MIN, PORT_MAX, 'validation.port.range');
}

const PORT_TEXT = /^[1-9][0-9]{0,4}$/;

/** `80` or `1000-2000` with first <= last, both 1-65535; null otherwise. */
export function parsePortRange(text: string): { first: number; last: number } | null {
  const parts = text.split('-');
  if (parts.length > 2 || !parts.every((p) => PORT_TEXT.test(p))) return null;
  const first = Number(parts[0]);
  const last = Number(parts[1] ?? parts[0]);
  if (!isPort(first) || !isPort(last) || first > last) return null;
  return { first, last };
}

export function portRangeField(options: TextFieldOptions = {}) {
  const format = (v: string) => {
    const parts = v.split('-');
    return parts.length <= 2 && parts.every((p) => PORT_TEXT.test(p) && isPort(Number(p)));
  };
  return checkedString(format, 'validation.portRange.format', options).refine(
    (v) => v === '' || !format(v) || parsePortRange(v) !== null,
    { error: 'validation.portRange.order' },
  );
}

export function tunnelPortField() {
  return integerInRange(TUNNEL_PORT_MIN, TUNNEL_PORT_MAX, 'validation.tunnelPort.range').default(TUNNEL_PORT_DEFAULT);
}
