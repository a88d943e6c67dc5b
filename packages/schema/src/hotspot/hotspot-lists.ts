import { z } from 'zod';
import { defineEntity, type EntityDef } from '../entity/define-entity.js';
import { plainTextField } from '../common/text-fields.js';
import { stringBase } from '../common/field-base.js';
import { isMac, normalizeMac, isZeroMac } from '../common/mac-address.js';
import { parseAccessIp } from '../common/access-ip.js';
import { isDomain } from '../common/text-fields.js';
import { isSafeText, TEXT_CONTROL_MESSAGE } from '../common/text-guard.js';
import { HOTSPOT_MESSAGES } from './hotspot-fields.js';

/** Kinds of white/black list entries (spec §3): a client MAC, a destination domain, an IP. */
export const LIST_ENTRY_TYPES = ['mac', 'url', 'ip'] as const;
export type ListEntryType = (typeof LIST_ENTRY_TYPES)[number];

/**
 * Whether `value` is a valid entry of `type`: a unicast-or-not MAC (not all zero); a domain
 * (`*.example.com` allowed); an IPv4/IPv6 address, range, CIDR or IP/netmask.
 */
export function isListValue(type: ListEntryType, value: string): boolean {
  switch (type) {
    case 'mac':
      return normalizeMac(value) !== null && !isZeroMac(value);
    case 'url':
      return isDomain(value, { wildcard: true });
    case 'ip':
      return value !== '' && value.length <= 100 && parseAccessIp(value) !== null;
  }
}

/** The form two entries are compared in: MACs normalised, domains lower-case. */
export function listValueKey(type: ListEntryType, value: string): string {
  if (type === 'mac') return `mac:${normalizeMac(value) ?? value.toLowerCase()}`;
  return `${type}:${value.toLowerCase()}`;
}

function listEntity<N extends string>(name: N, path: string, module: string, route: string) {
  return defineEntity({
    name,
    path,
    module,
    route,
    kind: 'collection',
    schema: z.object({
      id: z.string(),
      type: z.enum(LIST_ENTRY_TYPES, { error: 'validation.option' }).default('ip'),
      value: stringBase()
        .min(1, { error: 'validation.required' })
        .max(253, { error: 'validation.text.length' })
        .refine(isSafeText, { error: TEXT_CONTROL_MESSAGE })
        .refine((v) => LIST_ENTRY_TYPES.some((type) => isListValue(type, v)), { error: HOTSPOT_MESSAGES.listValue })
        .overwrite((v) => (isMac(v) || /^[0-9a-f]{2}(-[0-9a-f]{2}){5}$/i.test(v) ? (normalizeMac(v) ?? v) : v)),
      comment: plainTextField(64).default(''),
    }),
    refine(value, ctx) {
      if (!isListValue(value.type, value.value)) {
        ctx.addIssue('value', HOTSPOT_MESSAGES.listValue);
      }
    },
    list: {
      columns: [
        { field: 'type', format: 'option', sortable: true },
        { field: 'value', sortable: true },
        { field: 'comment' },
      ],
      defaultSort: 'value',
    },
    form: {
      tabs: [
        {
          key: 'basic',
          fields: [{ name: 'type', widget: 'select', options: LIST_ENTRY_TYPES }, { name: 'value' }, { name: 'comment' }],
        },
      ],
    },
    maxRows: 2048,
  });
}

/** White list (spec §3, DESIGN §6): entries that bypass the portal. */
export const hotspotWhitelist = listEntity('hotspotWhitelist', 'auth/whitelist', 'whitelistconfig', '/hotspot/whitelistconfig');
/** Black list: clients and destinations refused whatever their authentication. */
export const hotspotBlacklist = listEntity('hotspotBlacklist', 'auth/blacklist', 'blacklistconfig', '/hotspot/blacklistconfig');
export type HotspotListEntry = z.infer<typeof hotspotWhitelist.schema>;
export type ListEntity = EntityDef<typeof hotspotWhitelist.schema>;
