import { z } from 'zod';
import { isSafeText, isPrintableAscii } from '../common/text-guard.js';
import { reportMacField } from './ucentral-jsonrpc.js';
import { TX_POWER_MAX_DBM, TX_POWER_MIN_DBM } from '../wifi/wifi-tx-power.js';

/**
 * The part of the OpenWiFi configuration schema (ucentral-schema) the controller sends and
 * the agent applies: the unit, radios, interfaces with their SSIDs (encryption, 802.1X RADIUS,
 * MAC access lists, 802.11k/v), and the metrics intervals. Field names follow the schema's
 * kebab-case so an OpenWiFi AP reads the same document. `portico-steering` is ours: the
 * roaming threshold (spec §5) below which the agent steers a station away with an 802.11v
 * BSS transition request, as are `portico-reject-rssi` and the unit's `portico-reboot-time`
 * (CPE settings of spec §9); an AP that does not know them ignores them.
 */

export const UCENTRAL_BANDS = ['2G', '5G'] as const;
export type UcentralBand = (typeof UCENTRAL_BANDS)[number];

/** SSID: 1-32 bytes of UTF-8 (IEEE 802.11), no control characters. */
export const SSID_MAX_BYTES = 32;
export function ssidName() {
  return z
    .string()
    .min(1)
    .refine(isSafeText, { error: 'ucentral.text' })
    .refine((v) => new TextEncoder().encode(v).length <= SSID_MAX_BYTES, { error: 'validation.ssid.length' });
}

/** WPA passphrase: 8-63 printable ASCII characters (IEEE 802.11i). */
export function wpaKey() {
  return z
    .string()
    .min(8, { error: 'validation.wpaKey.length' })
    .max(63, { error: 'validation.wpaKey.length' })
    .refine(isPrintableAscii, { error: 'validation.wpaKey.chars' });
}

export const ENCRYPTION_PROTOS = ['none', 'psk2', 'sae', 'psk2-sae', 'wpa2'] as const;

const secretText = z.string().min(1).max(128).refine(isPrintableAscii, { error: 'ucentral.text' });
const hostText = z.string().min(1).max(253).regex(/^[A-Za-z0-9.:-]+$/);

export const radiusServerSchema = z.object({
  host: hostText,
  port: z.number().int().min(1).max(65535),
  secret: secretText,
});

export const ssidConfigSchema = z
  .object({
    name: ssidName(),
    'wifi-bands': z.array(z.enum(UCENTRAL_BANDS)).min(1).max(2),
    /** ap: an access point; wds-ap: a CPE base station; wds-sta: a CPE receiver. */
    'bss-mode': z.enum(['ap', 'wds-ap', 'wds-sta']).default('ap'),
    'hidden-ssid': z.boolean().default(false),
    'isolate-clients': z.boolean().default(false),
    'maximum-clients': z.number().int().min(1).max(512).default(64),
    encryption: z.object({
      proto: z.enum(ENCRYPTION_PROTOS),
      key: wpaKey().optional(),
      ieee80211w: z.enum(['disabled', 'optional', 'required']).default('optional'),
    }),
    radius: z.object({ authentication: radiusServerSchema, accounting: radiusServerSchema.optional() }).optional(),
    'access-control-list': z
      .object({ mode: z.enum(['allow', 'deny']), 'mac-address': z.array(reportMacField()).max(1024) })
      .optional(),
    rrm: z.object({ 'neighbor-reporting': z.boolean().default(false) }).optional(),
    'portico-steering': z
      .object({ 'bss-transition': z.boolean(), 'rssi-threshold': z.number().int().min(-95).max(-65) })
      .optional(),
    /** Ours: stations weaker than this are refused association (CPE links, spec §9 -95). */
    'portico-reject-rssi': z.number().int().min(-95).max(-40).optional(),
  })
  .superRefine((ssid, ctx) => {
    const proto = ssid.encryption.proto;
    if ((proto === 'psk2' || proto === 'sae' || proto === 'psk2-sae') && !ssid.encryption.key) {
      ctx.addIssue({ code: 'custom', path: ['encryption', 'key'], message: 'validation.required' });
    }
    if (proto === 'wpa2' && !ssid.radius) ctx.addIssue({ code: 'custom', path: ['radius'], message: 'validation.required' });
  });
export type SsidConfig = z.infer<typeof ssidConfigSchema>;

export const radioConfigSchema = z.object({
  band: z.enum(UCENTRAL_BANDS),
  country: z.string().regex(/^[A-Z]{2}$/),
  channel: z.union([z.literal('auto'), z.number().int().min(1).max(196)]),
  'channel-width': z.union([z.literal(20), z.literal(40), z.literal(80)]).default(20),
  'tx-power': z.number().int().min(TX_POWER_MIN_DBM).max(TX_POWER_MAX_DBM).optional(),
  'rts-threshold': z.number().int().min(1).max(2347).default(2347),
  'allow-dfs': z.boolean().default(false),
});
export type RadioConfig = z.infer<typeof radioConfigSchema>;

export const interfaceConfigSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,15}$/),
  role: z.enum(['upstream', 'downstream']),
  vlan: z.object({ id: z.number().int().min(1).max(4094) }).optional(),
  ssids: z.array(ssidConfigSchema).max(16).default([]),
});

export const deviceConfigSchema = z.object({
  uuid: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  unit: z
    .object({
      name: z.string().max(64).refine(isSafeText, { error: 'ucentral.text' }).optional(),
      timezone: z.string().max(64).regex(/^[A-Za-z0-9_+\-/]*$/).optional(),
      'leds-active': z.boolean().default(true),
      /** Ours: a daily reboot at this local time (CPEs, spec §9 4:30). */
      'portico-reboot-time': z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/).optional(),
    })
    .default({ 'leds-active': true }),
  radios: z.array(radioConfigSchema).max(4),
  interfaces: z.array(interfaceConfigSchema).max(8),
  metrics: z
    .object({
      statistics: z.object({ interval: z.number().int().min(10).max(3600) }).optional(),
      health: z.object({ interval: z.number().int().min(60).max(86400) }).optional(),
    })
    .default({}),
});
export type DeviceConfig = z.infer<typeof deviceConfigSchema>;
/** A configuration as written before defaults are filled in. */
export type DeviceConfigInput = z.input<typeof deviceConfigSchema>;
