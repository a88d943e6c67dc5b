import { intToIpv4, parseIpv4Selector, parsePortRange } from '@portico/schema';
import { cidr4, integer, ipv4, RenderValueError } from '../network/network-public.js';

/**
 * Firewall values as nftables tokens. The schemas validated them already; these are the last
 * check before the ruleset: anything that is not exactly the expected token throws.
 */

/** An address selector: `a.b.c.d`, `a.b.c.d-e.f.g.h` or a network `a.b.c.d/len`. */
export function addressSelector(text: string): string {
  const parsed = parseIpv4Selector(text);
  if (!parsed) throw new RenderValueError(`address selector ${JSON.stringify(text)} cannot be rendered`);
  if (parsed.form === 'address') return ipv4(text);
  if (parsed.form === 'range') {
    const [first, last] = text.split('-') as [string, string];
    return `${ipv4(first)}-${ipv4(last)}`;
  }
  // Networks are written as their network address, whatever host bits or mask form was typed.
  const size = parsed.last - parsed.first + 1;
  const prefix = 32 - Math.log2(size);
  return cidr4(`${intToIpv4(parsed.first)}/${integer(prefix, 0, 32, 'prefix')}`);
}

/** A port or a port range: `80`, `1000-2000`. */
export function portSpec(text: string): string {
  const range = parsePortRange(text);
  if (!range) throw new RenderValueError(`port ${JSON.stringify(text)} cannot be rendered`);
  const first = integer(range.first, 1, 65_535, 'port');
  return range.first === range.last ? first : `${first}-${integer(range.last, 1, 65_535, 'port')}`;
}

export function anonymousSet(values: readonly string[]): string {
  return values.length === 1 ? values[0]! : `{ ${values.join(', ')} }`;
}
