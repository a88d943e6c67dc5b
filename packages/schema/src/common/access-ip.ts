import { z } from 'zod';
import ipaddr from 'ipaddr.js';

/**
 * Access-IP fields (spec §5): a single IP, a range `a-b`, a CIDR `a/len` or `a/netmask`;
 * empty means unrestricted.
 */
export function parseAccessIp(value: string): { first: bigint; last: bigint; v6: boolean } | null {
  const text = value.trim();
  if (text !== value || text === '') return null;
  try {
    if (text.includes('-')) {
      const [a, b] = text.split('-');
      if (!ipaddr.isValid(a!) || !ipaddr.isValid(b!)) return null;
      const pa = ipaddr.parse(a!);
      const pb = ipaddr.parse(b!);
      if (pa.kind() !== pb.kind()) return null;
      const first = toBig(pa);
      const last = toBig(pb);
      return first <= last ? { first, last, v6: pa.kind() === 'ipv6' } : null;
    }
    if (text.includes('/')) {
      const [addr, mask] = text.split('/') as [string, string];
      if (!ipaddr.isValid(addr)) return null;
      const parsed = ipaddr.parse(addr);
      let bits: number;
      if (/^\d{1,3}$/.test(mask)) bits = Number(mask);
      else if (parsed.kind() === 'ipv4' && ipaddr.IPv4.isValidFourPartDecimal(mask)) {
        const prefix = ipaddr.IPv4.parse(mask).prefixLengthFromSubnetMask();
        if (prefix === null) return null;
        bits = prefix;
      } else return null;
      const width = parsed.kind() === 'ipv4' ? 32 : 128;
      if (bits > width) return null;
      const base = toBig(parsed);
      const hostBits = BigInt(width - bits);
      const first = (base >> hostBits) << hostBits;
      const last = first + (1n << hostBits) - 1n;
      return { first, last, v6: width === 128 };
    }
    if (parsed(text)) {
      const p = ipaddr.parse(text);
      const n = toBig(p);
      return { first: n, last: n, v6: p.kind() === 'ipv6' };
    }
    return null;
  } catch {
    return null;
  }
}

function parsed(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || (text.includes(':') && ipaddr.IPv6.isValid(text));
}

function toBig(addr: ipaddr.IPv4 | ipaddr.IPv6): bigint {
  return addr.toByteArray().reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
}

/** Whether `address` (an IP literal; IPv4-mapped IPv6 counts as IPv4) is inside any entry. */
export function accessIpAllows(entries: readonly string[], address: string): boolean {
  if (entries.length === 0) return true;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(address);
  } catch {
    return false;
  }
  const n = toBig(addr);
  const v6 = addr.kind() === 'ipv6';
  return entries.some((entry) => {
    const range = parseAccessIp(entry);
    return range !== null && range.v6 === v6 && n >= range.first && n <= range.last;
  });
}

export function accessIpField() {
  return z
    .string()
    .max(100, { error: 'validation.accessIp' })
    .refine((v) => v === '' || parseAccessIp(v) !== null, { error: 'validation.accessIp' });
}

/** An access-IP entry as its first and last address in canonical text (for nftables ranges); null if invalid. */
export function accessIpBounds(value: string): { first: string; last: string; v6: boolean } | null {
  const range = parseAccessIp(value);
  if (!range) return null;
  const width = range.v6 ? 16 : 4;
  const text = (n: bigint) => {
    const bytes: number[] = [];
    for (let i = width - 1; i >= 0; i--) bytes.push(Number((n >> BigInt(i * 8)) & 0xffn));
    return ipaddr.fromByteArray(bytes).toString();
  };
  return { first: text(range.first), last: text(range.last), v6: range.v6 };
}
