import {
  AUTO_CHANNEL_OPTION,
  CHANNELS_2G_ALL,
  CHANNELS_BY_BAND,
  channelOption,
  htmodesFor,
  WIFI_AUTO,
  WIFI_BANDS,
  type ChannelOption,
  type HtmodeOption,
  type WifiBand,
} from './wifi-channels.js';
import { COUNTRY_NAMES, isNamedCountryCode, type CountryNames, type NamedCountryCode } from './wifi-country-names.js';

/**
 * Wi-Fi country catalogue (spec §3): for each country the channels and htmodes its regulator
 * allows on 2.4 GHz and 5 GHz. The channel sets follow the national rules as recorded in the
 * Linux wireless regulatory database (wireless-regdb), narrowed to the channels the product
 * offers: 2.4 GHz 1–13 and 5 GHz 36–64, 100–140, 149–165. The radio driver still applies its
 * own regulatory database (power limits, DFS, indoor-only rules); this table decides what the
 * console lets an administrator pick.
 */

/** AP config country default (spec §9). */
export const DEFAULT_WIFI_COUNTRY: NamedCountryCode = 'CN';

/** An inclusive run of 5 GHz channel numbers; only channels the product offers are kept. */
type ChannelRun = readonly [first: number, last: number];

interface RegulatoryRule {
  /** Highest 2.4 GHz channel: 11 or 13. */
  last2g: 11 | 13;
  runs5g: readonly ChannelRun[];
}

/** 5150–5350 MHz: 36–64 (U-NII-1 and U-NII-2A, 52–64 with DFS). */
const LOW: ChannelRun = [36, 64];
/** 5470–5725 MHz: 100–140 (U-NII-2C, DFS). */
const MID: ChannelRun = [100, 140];
/** 5725–5850 MHz: 149–165 (U-NII-3). */
const HIGH: ChannelRun = [149, 165];

// All three 5 GHz groups: FCC Part 15.407 and the many regulators that follow it.
const ALL_GROUPS: RegulatoryRule = { last2g: 13, runs5g: [LOW, MID, HIGH] };

// The United States and FCC-derived domains stop 2.4 GHz at channel 11: channels 12 and 13
// would need reduced power next to the 2483.5 MHz restricted band, so the domains list
// 2402–2472 MHz only. The specification names Canada, the Dominican Republic, Iran,
// Nicaragua, Panama and Puerto Rico; the United States and Guatemala share the same limit.
const ALL_GROUPS_11: RegulatoryRule = { last2g: 11, runs5g: [LOW, MID, HIGH] };

// EU/CEPT (ECC decision 2005/513/EC, EN 301 893): 5150–5350 and 5470–5725 MHz. 5725–5875 MHz
// is open only to 25 mW short-range devices, too weak for an access point, so 149–165 are
// left out. Japan (MIC), Turkey (BTK), South Africa (ICASA) and several Gulf regulators
// allow the same two groups.
const ETSI: RegulatoryRule = { last2g: 13, runs5g: [LOW, MID] };

// No 5470–5725 MHz band: China (MIIT 2023: 5150–5350 indoor and 5725–5850 MHz), Chile,
// Uruguay, Venezuela, Nepal, Bahrain.
const LOW_AND_HIGH: RegulatoryRule = { last2g: 13, runs5g: [LOW, HIGH] };
const LOW_AND_HIGH_11: RegulatoryRule = { last2g: 11, runs5g: [LOW, HIGH] };

// 5150–5350 MHz only: Israel, Egypt, Kuwait, Morocco, Tunisia.
const LOW_ONLY: RegulatoryRule = { last2g: 13, runs5g: [LOW] };

// 5725–5850 MHz only: Bangladesh and Pakistan.
const HIGH_ONLY: RegulatoryRule = { last2g: 13, runs5g: [HIGH] };

// Australia (ACMA LIPD class licence) and Canada (ISED RSS-247) keep 5600–5650 MHz clear for
// weather radars, which removes channels 120–128.
const WEATHER_RADAR_GAP: readonly ChannelRun[] = [LOW, [100, 116], [132, 140], HIGH];

const RULES: Readonly<Record<NamedCountryCode, RegulatoryRule>> = {
  // All three 5 GHz groups, 13 channels on 2.4 GHz.
  MX: ALL_GROUPS,
  CO: ALL_GROUPS,
  EC: ALL_GROUPS,
  PE: ALL_GROUPS,
  AR: ALL_GROUPS,
  BR: ALL_GROUPS,
  CR: ALL_GROUPS,
  TW: ALL_GROUPS,
  KR: ALL_GROUPS,
  HK: ALL_GROUPS,
  MO: ALL_GROUPS,
  SG: ALL_GROUPS,
  TH: ALL_GROUPS,
  VN: ALL_GROUPS,
  PH: ALL_GROUPS,
  IN: ALL_GROUPS,
  LK: ALL_GROUPS,
  KZ: ALL_GROUPS,
  NZ: ALL_GROUPS,
  AE: ALL_GROUPS,
  QA: ALL_GROUPS,
  UA: ALL_GROUPS,
  // Ofcom (IR 2030) opened 5725–5850 MHz indoors in 2017, on top of the CEPT bands.
  GB: ALL_GROUPS,

  // 2.4 GHz 1–11 with all three 5 GHz groups.
  US: ALL_GROUPS_11,
  PR: ALL_GROUPS_11,
  NI: ALL_GROUPS_11,
  PA: ALL_GROUPS_11,
  CA: { last2g: 11, runs5g: WEATHER_RADAR_GAP },

  // 2.4 GHz 1–11 without 5470–5725 MHz.
  DO: LOW_AND_HIGH_11,
  GT: LOW_AND_HIGH_11,

  // Iran: 5725–5850 MHz only.
  IR: { last2g: 11, runs5g: [HIGH] },

  AU: { last2g: 13, runs5g: WEATHER_RADAR_GAP },
  // Malaysia (MCMC): 5470–5650 MHz, so the mid group ends at 128.
  MY: { last2g: 13, runs5g: [LOW, [100, 128], HIGH] },
  // Russia (GKRCh): 5150–5350 and 5650–5850 MHz.
  RU: { last2g: 13, runs5g: [LOW, [132, 140], HIGH] },
  // Indonesia (Kominfo 2019): 5150–5350 and 5725–5825 MHz, so 165 is out.
  ID: { last2g: 13, runs5g: [LOW, [149, 161]] },
  // Jordan (TRC): 5150–5250 and 5725–5850 MHz.
  JO: { last2g: 13, runs5g: [[36, 48], HIGH] },
  // Nigeria (NCC): 5250–5350 and 5725–5850 MHz.
  NG: { last2g: 13, runs5g: [[52, 64], HIGH] },
  // Kenya (CA): 5150–5250, 5470–5570 and 5725–5775 MHz.
  KE: { last2g: 13, runs5g: [[36, 48], [100, 112], [149, 153]] },

  CN: LOW_AND_HIGH,
  CL: LOW_AND_HIGH,
  UY: LOW_AND_HIGH,
  VE: LOW_AND_HIGH,
  NP: LOW_AND_HIGH,
  BH: LOW_AND_HIGH,

  IL: LOW_ONLY,
  EG: LOW_ONLY,
  KW: LOW_ONLY,
  MA: LOW_ONLY,
  TN: LOW_ONLY,

  BD: HIGH_ONLY,
  PK: HIGH_ONLY,

  // EU members, EFTA and other CEPT administrations.
  IE: ETSI,
  FR: ETSI,
  DE: ETSI,
  IT: ETSI,
  ES: ETSI,
  PT: ETSI,
  NL: ETSI,
  BE: ETSI,
  LU: ETSI,
  AT: ETSI,
  CH: ETSI,
  LI: ETSI,
  SE: ETSI,
  NO: ETSI,
  DK: ETSI,
  FI: ETSI,
  IS: ETSI,
  PL: ETSI,
  CZ: ETSI,
  SK: ETSI,
  HU: ETSI,
  RO: ETSI,
  BG: ETSI,
  GR: ETSI,
  HR: ETSI,
  SI: ETSI,
  EE: ETSI,
  LV: ETSI,
  LT: ETSI,
  CY: ETSI,
  MT: ETSI,
  RS: ETSI,
  BY: ETSI,
  TR: ETSI,
  JP: ETSI,
  ZA: ETSI,
  SA: ETSI,
  OM: ETSI,
};

/** One band of a country: its channel list ('auto' first) and htmode list ('auto' first). */
export interface WifiBandChannels {
  band: WifiBand;
  channels: readonly ChannelOption[];
  htmodes: readonly HtmodeOption[];
}

export interface WifiCountry extends CountryNames {
  /** ISO 3166-1 alpha-2, upper case. */
  code: NamedCountryCode;
  /** 2.4 GHz first, 5 GHz second. */
  bands: readonly [WifiBandChannels, WifiBandChannels];
}

function bandChannels(band: WifiBand, numbers: readonly number[]): WifiBandChannels {
  const channels = [AUTO_CHANNEL_OPTION, ...numbers.map((n) => Object.freeze(channelOption(band, n)))];
  return Object.freeze({ band, channels: Object.freeze(channels), htmodes: htmodesFor(band) });
}

function buildCountry(code: NamedCountryCode, rule: RegulatoryRule): WifiCountry {
  const numbers2g = CHANNELS_2G_ALL.filter((n) => n <= rule.last2g);
  const numbers5g = CHANNELS_BY_BAND['5g'].filter((n) => rule.runs5g.some(([first, last]) => n >= first && n <= last));
  return Object.freeze({
    code,
    ...COUNTRY_NAMES[code],
    bands: Object.freeze([bandChannels('2g', numbers2g), bandChannels('5g', numbers5g)] as const),
  });
}

const CATALOGUE: ReadonlyMap<NamedCountryCode, WifiCountry> = new Map(
  (Object.keys(RULES) as NamedCountryCode[])
    .sort()
    .map((code) => [code, buildCountry(code, RULES[code])] as const),
);

const COUNTRY_LIST: readonly WifiCountry[] = Object.freeze([...CATALOGUE.values()]);

/** The catalogue entry for an upper-case two-letter code, or undefined if it is not listed. */
export function getCountry(code: string): WifiCountry | undefined {
  return isNamedCountryCode(code) ? CATALOGUE.get(code) : undefined;
}

/** Every country of the catalogue, ordered by code. */
export function listCountries(): readonly WifiCountry[] {
  return COUNTRY_LIST;
}

/** The channel list of a country's band, 'auto' first; empty for a code not in the catalogue. */
export function channelsFor(code: string, band: WifiBand): readonly ChannelOption[] {
  const country = getCountry(code);
  if (!country) return [];
  return country.bands[WIFI_BANDS.indexOf(band)]!.channels;
}

/** Whether `value` ('auto' or a channel number) may be picked for that country and band. */
export function isChannelAllowed(code: string, band: WifiBand, value: unknown): boolean {
  if (value === WIFI_AUTO) return getCountry(code) !== undefined;
  if (typeof value !== 'number') return false;
  return channelsFor(code, band).some((option) => option.value === value);
}
