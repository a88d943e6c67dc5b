import { checkedString, type TextFieldOptions } from './field-base.js';
import { isCidr4, isCidr6, isIp, isIpv4, isIpv6, netmaskToPrefix, parseIpv4Range } from './ip-address.js';

/** Address fields (spec §5, DESIGN §2). Messages are i18n keys under `validation.`. */

export function ipv4Field(options: TextFieldOptions = {}) {
  return checkedString(isIpv4, 'validation.ipv4', options);
}

export function ipv6Field(options: TextFieldOptions = {}) {
  return checkedString(isIpv6, 'validation.ipv6', options);
}

/** Either family. */
export function ipField(options: TextFieldOptions = {}) {
  return checkedString(isIp, 'validation.ip', options);
}

export interface CidrFieldOptions extends TextFieldOptions {
  /** Require a network address: host bits zero. */
  network?: boolean;
}

/** IPv4 CIDR `a.b.c.d/len` (peer subnets, routes). */
export function cidrField(options: CidrFieldOptions = {}) {
  const field = checkedString((v) => isCidr4(v), 'validation.cidr', options);
  if (!options.network) return field;
  return field.refine((v) => v === '' || !isCidr4(v) || isCidr4(v, { network: true }), {
    error: 'validation.cidrHostBits',
  });
}

export function cidr6Field(options: CidrFieldOptions = {}) {
  const field = checkedString((v) => isCidr6(v), 'validation.cidr6', options);
  if (!options.network) return field;
  return field.refine((v) => v === '' || !isCidr6(v) || isCidr6(v, { network: true }), {
    error: 'validation.cidrHostBits',
  });
}

export interface NetmaskFieldOptions extends TextFieldOptions {
  /** Accept 0.0.0.0 (a default route's mask); an interface mask never is. */
  allowZero?: boolean;
}

/** A contiguous IPv4 netmask. */
export function netmaskField(options: NetmaskFieldOptions = {}) {
  return checkedString(
    (v) => {
      const prefix = netmaskToPrefix(v);
      return prefix !== null && (prefix > 0 || options.allowZero === true);
    },
    'validation.netmask',
    options,
  );
}

/** IPv4 range `a-b` with a <= b (address pools, user ranges). */
export function ipRangeField(options: TextFieldOptions = {}) {
  const format = (v: string) => {
    const parts = v.split('-');
    return parts.length === 2 && isIpv4(parts[0]!) && isIpv4(parts[1]!);
  };
  return checkedString(format, 'validation.ipRange.format', options).refine(
    (v) => v === '' || !format(v) || parseIpv4Range(v) !== null,
    { error: 'validation.ipRange.order' },
  );
}
