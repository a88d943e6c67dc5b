import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { integerInRange, stringBase } from '../common/field-base.js';
import { nameField } from '../common/text-fields.js';
import { isPrintableAscii } from '../common/text-guard.js';
import { WIFI_AUTO } from '../wifi/wifi-channels.js';
import { countryCodeField, txPowerField } from '../wifi/wifi-fields.js';
import { DEFAULT_WIFI_COUNTRY, isChannelAllowed } from '../wifi/wifi-country-catalogue.js';
import { CHANNEL_OPTIONS_2G, CHANNEL_OPTIONS_5G, RTS_THRESHOLD_DEFAULT, TX_POWER_CHOICES } from './wireless-group.js';
import { ssidField } from './wireless-ssid.js';

/**
 * CPE profiles (spec §3 cpeconfig, /cpemanage/cpeconfigure): an outdoor bridge link. A base
 * CPE beacons the link SSID, receivers join it; CPEs bound to one profile share its band and
 * country, so CPEs of different frequency or country cannot be configured together (§5).
 * Defaults of §9: RTS 2347, stations weaker than -95 dBm refused, daily reboot at 4:30.
 */
export const CPE_MODES = ['base', 'receiver'] as const;
export const CPE_BANDS = ['2g', '5g'] as const;
export const CPE_REJECT_RSSI_DEFAULT = -95;
export const CPE_REBOOT_TIME_DEFAULT = '04:30';
export const CPE_PROFILE_MAX = 64;

export const cpeProfile = defineEntity({
  name: 'cpeProfile',
  path: 'ac/cpe',
  module: 'cpeconfigure',
  route: '/cpemanage/cpeconfigure',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    name: nameField(),
    mode: z.enum(CPE_MODES, { error: 'validation.option' }).default('base'),
    band: z.enum(CPE_BANDS, { error: 'validation.option' }).default('5g'),
    country: countryCodeField().default(DEFAULT_WIFI_COUNTRY),
    channel: z.union([z.literal(WIFI_AUTO), z.number().int()], { error: 'validation.wifi.channel' }).default(WIFI_AUTO),
    width: z.union([z.literal(20), z.literal(40), z.literal(80)], { error: 'validation.wifi.channelWidth' }).default(40),
    power: txPowerField().default(WIFI_AUTO),
    ssid: ssidField(),
    key: stringBase()
      .refine(isPrintableAscii, { error: 'validation.wpaKey.chars' })
      .refine((v) => v.length >= 8 && v.length <= 63, { error: 'validation.wpaKey.length' }),
    rts: integerInRange(1, RTS_THRESHOLD_DEFAULT, 'validation.wifi.rts').default(RTS_THRESHOLD_DEFAULT),
    rejectRssi: integerInRange(-95, -40, 'validation.wifi.rejectRssi').default(CPE_REJECT_RSSI_DEFAULT),
    rebootTime: stringBase()
      .refine((v) => v === '' || /^([01]\d|2[0-3]):[0-5]\d$/.test(v), { error: 'validation.time' })
      .default(CPE_REBOOT_TIME_DEFAULT),
  }),
  writeOnly: ['key'],
  refine(value, ctx) {
    if (!isChannelAllowed(value.country, value.band, value.channel)) ctx.addIssue('channel', 'validation.wifi.channel');
    if (value.band === '2g' && value.width === 80) ctx.addIssue('width', 'validation.wifi.channelWidth');
  },
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'mode', format: 'option' },
      { field: 'band', format: 'option' },
      { field: 'country' },
      { field: 'channel' },
      { field: 'ssid' },
    ],
    defaultSort: 'name',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'name' },
          { name: 'mode', options: [...CPE_MODES] },
          { name: 'band', options: [...CPE_BANDS] },
          { name: 'country' },
          { name: 'channel', options: [...new Set([...CHANNEL_OPTIONS_2G, ...CHANNEL_OPTIONS_5G])] },
          { name: 'width', options: [20, 40, 80] },
          { name: 'power', options: [...TX_POWER_CHOICES] },
          { name: 'ssid' },
          { name: 'key', widget: 'password', keepWhenEmpty: true },
        ],
      },
      { key: 'advanced', fields: [{ name: 'rts' }, { name: 'rejectRssi' }, { name: 'rebootTime' }] },
    ],
  },
  maxRows: CPE_PROFILE_MAX,
});
export type CpeProfile = z.infer<typeof cpeProfile.schema>;
