import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { integerInRange, stringBase } from '../common/field-base.js';
import { isPrintableAscii, isSafeText, TEXT_CONTROL_MESSAGE } from '../common/text-guard.js';
import { SHARED_KEY_MAX } from '../common/text-fields.js';
import { ipField } from '../common/ip-fields.js';
import { portField } from '../common/port-fields.js';
import { SSID_MAX_BYTES } from '../ucentral/ucentral-config.js';
import { wirelessRowIdField } from './wireless-group.js';

/**
 * The SSIDs an AP group broadcasts (spec §3 apgroup; §5 "SSID count has a maximum"). Open
 * SSIDs are bridged to the LAN, where the hotspot's service zone sends clients to the portal;
 * WPA2/WPA3 personal use a passphrase; enterprise authenticates against the gateway's RADIUS.
 */

/** SSIDs in one group: what one radio of common APs can beacon (8 BSSes per radio). */
export const SSIDS_PER_GROUP_MAX = 8;
export const SSID_SECURITY = ['open', 'wpa2psk', 'wpa3sae', 'wpa2wpa3', 'wpa2enterprise'] as const;
export const SSID_BANDS = ['both', '2g', '5g'] as const;
/** RADIUS authentication port (spec §9). */
export const RADIUS_AUTH_PORT = 1812;

export function ssidField() {
  return stringBase()
    .min(1, { error: 'validation.required' })
    .refine(isSafeText, { error: TEXT_CONTROL_MESSAGE })
    .refine((v) => new TextEncoder().encode(v).length <= SSID_MAX_BYTES, { error: 'validation.ssid.length' });
}

export const wirelessSsid = defineEntity({
  name: 'wirelessSsid',
  path: 'ac/ssid',
  module: 'grouping',
  route: '/wirelessmanage/grouping',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    group: wirelessRowIdField(),
    ssid: ssidField(),
    enabled: z.boolean().default(true),
    band: z.enum(SSID_BANDS, { error: 'validation.option' }).default('both'),
    security: z.enum(SSID_SECURITY, { error: 'validation.option' }).default('wpa2psk'),
    key: stringBase()
      .refine(isPrintableAscii, { error: 'validation.wpaKey.chars' })
      .refine((v) => v === '' || (v.length >= 8 && v.length <= 63), { error: 'validation.wpaKey.length' })
      .default(''),
    hidden: z.boolean().default(false),
    isolate: z.boolean().default(false),
    maxClients: integerInRange(1, 512, 'validation.wifi.maxClients').default(64),
    vlan: integerInRange(0, 4094, 'validation.wifi.vlan').default(0),
    // hostapd takes the server as an address (auth_server_addr), never a name.
    radiusHost: ipField({ allowEmpty: true }).default(''),
    radiusPort: portField().default(RADIUS_AUTH_PORT),
    radiusSecret: stringBase()
      .refine(isPrintableAscii, { error: 'validation.sharedKey.chars' })
      .max(SHARED_KEY_MAX, { error: 'validation.sharedKey.length' })
      .default(''),
  }),
  writeOnly: ['key', 'radiusSecret'],
  refine(value, ctx, mode) {
    const personal = value.security === 'wpa2psk' || value.security === 'wpa3sae' || value.security === 'wpa2wpa3';
    if (personal && value.key === '' && mode === 'add') ctx.addIssue('key', 'validation.required');
    if (value.security === 'wpa2enterprise') {
      if (value.radiusHost === '') ctx.addIssue('radiusHost', 'validation.required');
      if (value.radiusSecret === '' && mode === 'add') ctx.addIssue('radiusSecret', 'validation.required');
    }
  },
  list: {
    columns: [
      { field: 'ssid', sortable: true },
      { field: 'group', sortable: true },
      { field: 'band', format: 'option' },
      { field: 'security', format: 'option' },
      { field: 'enabled', format: 'enabled' },
      { field: 'vlan' },
    ],
    defaultSort: 'ssid',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'group', ref: [{ entity: 'apGroup', value: 'id', label: 'name' }] },
          { name: 'ssid' },
          { name: 'enabled', widget: 'switch' },
          { name: 'band', options: [...SSID_BANDS] },
          { name: 'security', options: [...SSID_SECURITY] },
          { name: 'key', widget: 'password', keepWhenEmpty: true, visibleWhen: { field: 'security', in: ['wpa2psk', 'wpa3sae', 'wpa2wpa3'] } },
          { name: 'radiusHost', visibleWhen: { field: 'security', equals: 'wpa2enterprise' } },
          { name: 'radiusPort', visibleWhen: { field: 'security', equals: 'wpa2enterprise' } },
          { name: 'radiusSecret', widget: 'password', keepWhenEmpty: true, visibleWhen: { field: 'security', equals: 'wpa2enterprise' } },
          { name: 'hidden', widget: 'switch' },
          { name: 'isolate', widget: 'switch' },
          { name: 'maxClients' },
          { name: 'vlan' },
        ],
      },
    ],
  },
  formRoutes: { prefix: 'ssid' },
  maxRows: SSIDS_PER_GROUP_MAX * 64,
});
export type WirelessSsid = z.infer<typeof wirelessSsid.schema>;
