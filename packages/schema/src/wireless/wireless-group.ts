import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { checkedString, integerInRange, type TextFieldOptions } from '../common/field-base.js';
import { nameField, plainTextField } from '../common/text-fields.js';
import { CHANNELS_2G_ALL, CHANNELS_5G_HIGH, CHANNELS_5G_LOW, CHANNELS_5G_MID, WIFI_AUTO } from '../wifi/wifi-channels.js';
import { countryCodeField, txPowerField } from '../wifi/wifi-fields.js';
import { DEFAULT_WIFI_COUNTRY, isChannelAllowed } from '../wifi/wifi-country-catalogue.js';
import { TX_POWER_MAX_DBM, TX_POWER_MIN_DBM } from '../wifi/wifi-tx-power.js';

/**
 * AP groups (spec §3 apgroup, /wirelessmanage/grouping): the radio profile every AP bound to
 * the group runs (country, per band channel, width and power, RTS/CTS), roaming (§5: threshold
 * -85 in -95..-65) and which MAC list applies. A group's SSIDs are `wirelessSsid` rows.
 */

export const ROAMING_THRESHOLD_DEFAULT = -85;
export const ROAMING_THRESHOLD_MIN = -95;
export const ROAMING_THRESHOLD_MAX = -65;
/** RTS/CTS threshold in bytes; 2347 turns RTS/CTS off (spec §9). */
export const RTS_THRESHOLD_DEFAULT = 2347;
export const AP_GROUP_MAX = 256;
/** How often APs send their state (stations, radios), seconds. */
export const AP_REPORT_INTERVAL_DEFAULT = 60;

export const CHANNEL_OPTIONS_2G = [WIFI_AUTO, ...CHANNELS_2G_ALL] as const;
export const CHANNEL_OPTIONS_5G = [WIFI_AUTO, ...CHANNELS_5G_LOW, ...CHANNELS_5G_MID, ...CHANNELS_5G_HIGH] as const;
export const TX_POWER_CHOICES = [WIFI_AUTO, ...Array.from({ length: TX_POWER_MAX_DBM - TX_POWER_MIN_DBM + 1 }, (_, i) => i + TX_POWER_MIN_DBM)] as const;
export const MAC_FILTER_MODES = ['off', 'blacklist', 'whitelist'] as const;

/** The id of another wireless row (a group): what the entity store assigns, nothing else. */
export function wirelessRowIdField(options: TextFieldOptions = {}) {
  return checkedString((v) => /^[A-Za-z0-9-]{1,64}$/.test(v), 'validation.option', options);
}

const channelValue = () =>
  z.union([z.literal(WIFI_AUTO), z.number().int()], { error: 'validation.wifi.channel' }).default(WIFI_AUTO);

export const apGroup = defineEntity({
  name: 'apGroup',
  path: 'ac/apgroup',
  module: 'grouping',
  route: '/wirelessmanage/grouping',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    name: nameField(),
    country: countryCodeField().default(DEFAULT_WIFI_COUNTRY),
    enabled2g: z.boolean().default(true),
    channel2g: channelValue(),
    width2g: z.union([z.literal(20), z.literal(40)], { error: 'validation.wifi.channelWidth' }).default(20),
    power2g: txPowerField().default(WIFI_AUTO),
    enabled5g: z.boolean().default(true),
    channel5g: channelValue(),
    width5g: z.union([z.literal(20), z.literal(40), z.literal(80)], { error: 'validation.wifi.channelWidth' }).default(80),
    power5g: txPowerField().default(WIFI_AUTO),
    allowDfs: z.boolean().default(false),
    rts: integerInRange(1, RTS_THRESHOLD_DEFAULT, 'validation.wifi.rts').default(RTS_THRESHOLD_DEFAULT),
    roaming: z.boolean().default(false),
    roamingThreshold: integerInRange(ROAMING_THRESHOLD_MIN, ROAMING_THRESHOLD_MAX, 'validation.wifi.roamingThreshold').default(
      ROAMING_THRESHOLD_DEFAULT,
    ),
    macFilter: z.enum(MAC_FILTER_MODES, { error: 'validation.option' }).default('off'),
    reportInterval: integerInRange(10, 3600, 'validation.wifi.reportInterval').default(AP_REPORT_INTERVAL_DEFAULT),
    comment: plainTextField(64).default(''),
  }),
  refine(value, ctx) {
    if (!isChannelAllowed(value.country, '2g', value.channel2g)) ctx.addIssue('channel2g', 'validation.wifi.channel');
    if (!isChannelAllowed(value.country, '5g', value.channel5g)) ctx.addIssue('channel5g', 'validation.wifi.channel');
    if (!value.enabled2g && !value.enabled5g) ctx.addIssue('enabled2g', 'validation.wifi.noBand');
  },
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'country', sortable: true },
      { field: 'channel2g' },
      { field: 'channel5g' },
      { field: 'roaming', format: 'enabled' },
      { field: 'macFilter', format: 'option' },
      { field: 'comment' },
    ],
    defaultSort: 'name',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'name' },
          { name: 'country' },
          { name: 'macFilter', options: [...MAC_FILTER_MODES] },
          { name: 'roaming', widget: 'switch' },
          { name: 'roamingThreshold', visibleWhen: { field: 'roaming', equals: true } },
          { name: 'reportInterval' },
          { name: 'comment' },
        ],
      },
      {
        key: 'radio2g',
        fields: [
          { name: 'enabled2g', widget: 'switch' },
          { name: 'channel2g', options: [...CHANNEL_OPTIONS_2G], visibleWhen: { field: 'enabled2g', equals: true } },
          { name: 'width2g', options: [20, 40], visibleWhen: { field: 'enabled2g', equals: true } },
          { name: 'power2g', options: [...TX_POWER_CHOICES], visibleWhen: { field: 'enabled2g', equals: true } },
        ],
      },
      {
        key: 'radio5g',
        fields: [
          { name: 'enabled5g', widget: 'switch' },
          { name: 'channel5g', options: [...CHANNEL_OPTIONS_5G], visibleWhen: { field: 'enabled5g', equals: true } },
          { name: 'width5g', options: [20, 40, 80], visibleWhen: { field: 'enabled5g', equals: true } },
          { name: 'power5g', options: [...TX_POWER_CHOICES], visibleWhen: { field: 'enabled5g', equals: true } },
          { name: 'allowDfs', widget: 'switch', visibleWhen: { field: 'enabled5g', equals: true } },
        ],
      },
      { key: 'advanced', fields: [{ name: 'rts' }] },
    ],
  },
  maxRows: AP_GROUP_MAX,
});
export type ApGroup = z.infer<typeof apGroup.schema>;
