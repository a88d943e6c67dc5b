/**
 * Wi-Fi bands, channel frequencies, htmodes and channel widths (spec §3 "Country catalogue",
 * §9 "Channel widths"). Pure data and arithmetic; the per-country channel sets live in
 * wifi-country-catalogue.ts.
 */

/** The value that lets the radio choose (channel, htmode, width, transmit power). */
export const WIFI_AUTO = 'auto';
export type WifiAuto = typeof WIFI_AUTO;

/** i18n key the console shows for every 'auto' entry. */
export const WIFI_AUTO_LABEL_KEY = 'wifi.option.auto';

/** Bands in display order: 2.4 GHz first, 5 GHz second. */
export const WIFI_BANDS = ['2g', '5g'] as const;
export type WifiBand = (typeof WIFI_BANDS)[number];

export function isWifiBand(value: unknown): value is WifiBand {
  return typeof value === 'string' && (WIFI_BANDS as readonly string[]).includes(value);
}

/** 2.4 GHz channels 1..13 sit 5 MHz apart from 2412 MHz. */
export const CHANNELS_2G_ALL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13] as const;

/** 5 GHz channel groups the catalogue draws from (20 MHz channels, 4 numbers apart). */
export const CHANNELS_5G_LOW = [36, 40, 44, 48, 52, 56, 60, 64] as const;
export const CHANNELS_5G_MID = [100, 104, 108, 112, 116, 120, 124, 128, 132, 136, 140] as const;
export const CHANNELS_5G_HIGH = [149, 153, 157, 161, 165] as const;

/** Every channel number the catalogue may list for a band. */
export const CHANNELS_BY_BAND: Readonly<Record<WifiBand, readonly number[]>> = {
  '2g': CHANNELS_2G_ALL,
  '5g': [...CHANNELS_5G_LOW, ...CHANNELS_5G_MID, ...CHANNELS_5G_HIGH],
};

/**
 * Centre frequency in MHz of a 20 MHz channel. 2.4 GHz: 2407 + 5·n for 1..13 (14 is the
 * Japanese 802.11b-only channel at 2484 and is never offered). 5 GHz: 5000 + 5·n.
 */
export function channelMhz(band: WifiBand, channel: number): number {
  if (!Number.isInteger(channel) || channel < 1) throw new RangeError(`channel ${channel}`);
  if (band === '2g') {
    if (channel > 14) throw new RangeError(`2.4 GHz channel ${channel}`);
    return channel === 14 ? 2484 : 2407 + 5 * channel;
  }
  if (channel > 196) throw new RangeError(`5 GHz channel ${channel}`);
  return 5000 + 5 * channel;
}

/** The parts a channel label is made of. */
export interface ChannelLabelParts {
  channel: number;
  mhz: number;
}

/** One entry of a channel list: 'auto' or a channel with its frequency. */
export type ChannelOption = { value: WifiAuto } | ({ value: number } & ChannelLabelParts);

/** "1 (2.412 GHz)", "36 (5.180 GHz)": the number, then the frequency in GHz to the MHz. */
export function formatChannelLabel(parts: ChannelLabelParts): string {
  return `${parts.channel} (${(parts.mhz / 1000).toFixed(3)} GHz)`;
}

export function channelOption(band: WifiBand, channel: number): ChannelOption {
  return { value: channel, channel, mhz: channelMhz(band, channel) };
}

export const AUTO_CHANNEL_OPTION: ChannelOption = Object.freeze({ value: WIFI_AUTO });

/** Channel widths the radio settings offer (spec §9). */
export const CHANNEL_WIDTHS = [WIFI_AUTO, 20, 40, 80] as const;
export type ChannelWidth = (typeof CHANNEL_WIDTHS)[number];

/** Htmode values; HT80 exists only on 5 GHz. */
export const HTMODES = [WIFI_AUTO, 'HT20', 'HT40', 'HT80'] as const;
export type Htmode = (typeof HTMODES)[number];

/**
 * One entry of an htmode list. `widthsMhz` are the widths the mode may fall back through,
 * widest first (HT40 runs at 40 MHz or drops to 20 MHz); empty for 'auto'.
 */
export interface HtmodeOption {
  value: Htmode;
  widthsMhz: readonly number[];
}

const HTMODE_OPTIONS_2G: readonly HtmodeOption[] = Object.freeze([
  { value: WIFI_AUTO, widthsMhz: [] },
  { value: 'HT20', widthsMhz: [20] },
  { value: 'HT40', widthsMhz: [40, 20] },
]);

const HTMODE_OPTIONS_5G: readonly HtmodeOption[] = Object.freeze([
  ...HTMODE_OPTIONS_2G,
  { value: 'HT80', widthsMhz: [80, 40, 20] },
]);

/** The htmode list of a band, 'auto' first. */
export function htmodesFor(band: WifiBand): readonly HtmodeOption[] {
  return band === '5g' ? HTMODE_OPTIONS_5G : HTMODE_OPTIONS_2G;
}

/** "HT40 40MHz/20MHz". Not for 'auto', whose label is the i18n key WIFI_AUTO_LABEL_KEY. */
export function formatHtmodeLabel(option: HtmodeOption): string {
  return `${option.value} ${option.widthsMhz.map((w) => `${w}MHz`).join('/')}`;
}

/** The widest width an htmode allows; 'auto' for 'auto'. */
export function htmodeWidth(htmode: Htmode): ChannelWidth {
  switch (htmode) {
    case 'HT20':
      return 20;
    case 'HT40':
      return 40;
    case 'HT80':
      return 80;
    default:
      return WIFI_AUTO;
  }
}
