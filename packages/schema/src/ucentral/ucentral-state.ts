import { z } from 'zod';
import { reportMacField, reportText } from './ucentral-jsonrpc.js';

/**
 * The part of the OpenWiFi state document (the `state` event) the controller reads: the unit's
 * load, memory and uptime, the radios' channel and power, and per SSID its stations with RSSI,
 * rates, traffic and connected time. Sizes are bounded: a hostile device cannot make the
 * controller hold more than 4 radios, 16 SSIDs and 256 stations per SSID.
 */

const counter = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const rate = z.object({ bitrate: z.number().nonnegative().max(1e7).optional() }).optional();

export const associationSchema = z.object({
  station: reportMacField(),
  /** dBm; absent where there is no radio (an 802.1X wired port). */
  rssi: z.number().int().min(-120).max(0).optional(),
  rx_rate: rate,
  tx_rate: rate,
  rx_bytes: counter.default(0),
  tx_bytes: counter.default(0),
  connected: counter.default(0),
  inactive: counter.default(0),
  /** Host name the AP learnt from DHCP, when it reports one. */
  hostname: reportText(64).optional(),
});
export type Association = z.infer<typeof associationSchema>;

export const ssidStateSchema = z.object({
  ssid: reportText(32),
  bssid: reportMacField(),
  mode: z.enum(['ap', 'wds-ap', 'wds-sta']).default('ap'),
  band: z.enum(['2G', '5G']).optional(),
  associations: z.array(associationSchema).max(256).default([]),
});

export const radioStateSchema = z.object({
  band: z.enum(['2G', '5G']).optional(),
  channel: z.number().int().min(1).max(196),
  channel_width: z.number().int().min(20).max(160).optional(),
  tx_power: z.number().int().min(0).max(40).optional(),
  noise: z.number().int().min(-120).max(0).optional(),
});

export const deviceStateSchema = z.object({
  unit: z
    .object({
      load: z.array(z.number().nonnegative().max(1000)).max(3).default([]),
      memory: z.object({ total: counter, free: counter }).optional(),
      uptime: counter.default(0),
      localtime: counter.optional(),
    })
    .default({ load: [], uptime: 0 }),
  radios: z.array(radioStateSchema).max(4).default([]),
  interfaces: z
    .array(z.object({ name: reportText(32), ssids: z.array(ssidStateSchema).max(16).default([]) }))
    .max(8)
    .default([]),
});
export type DeviceState = z.infer<typeof deviceStateSchema>;
export type DeviceStateInput = z.input<typeof deviceStateSchema>;

/** One network a radio heard during a scan. */
export const scanEntrySchema = z.object({
  bssid: reportMacField(),
  ssid: reportText(32).default(''),
  channel: z.number().int().min(1).max(196),
  width: z.union([z.literal(20), z.literal(40), z.literal(80), z.literal(160)]).default(20),
  signal: z.number().int().min(-120).max(0),
});
export type ScanEntry = z.infer<typeof scanEntrySchema>;
export const scanResultSchema = z.array(scanEntrySchema).max(512);
