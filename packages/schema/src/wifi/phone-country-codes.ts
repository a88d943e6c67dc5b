import { COUNTRY_NAMES, isNamedCountryCode, type CountryNames, type NamedCountryCode } from './wifi-country-names.js';

/**
 * Phone country table (spec §3): country names paired with ITU-T E.164 country calling codes.
 * North American Numbering Plan members (US, Canada, Puerto Rico, Dominican Republic) share +1;
 * Russia and Kazakhstan share +7.
 */
const DIAL_DIGITS: Readonly<Record<NamedCountryCode, string>> = {
  CN: '86',
  HK: '852',
  MO: '853',
  TW: '886',
  JP: '81',
  KR: '82',
  SG: '65',
  MY: '60',
  TH: '66',
  VN: '84',
  PH: '63',
  ID: '62',
  IN: '91',
  PK: '92',
  BD: '880',
  LK: '94',
  NP: '977',
  KZ: '7',
  AU: '61',
  NZ: '64',
  US: '1',
  CA: '1',
  PR: '1',
  MX: '52',
  DO: '1',
  PA: '507',
  NI: '505',
  GT: '502',
  CR: '506',
  CO: '57',
  EC: '593',
  PE: '51',
  CL: '56',
  AR: '54',
  BR: '55',
  UY: '598',
  VE: '58',
  GB: '44',
  IE: '353',
  FR: '33',
  DE: '49',
  IT: '39',
  ES: '34',
  PT: '351',
  NL: '31',
  BE: '32',
  LU: '352',
  AT: '43',
  CH: '41',
  LI: '423',
  SE: '46',
  NO: '47',
  DK: '45',
  FI: '358',
  IS: '354',
  PL: '48',
  CZ: '420',
  SK: '421',
  HU: '36',
  RO: '40',
  BG: '359',
  GR: '30',
  HR: '385',
  SI: '386',
  EE: '372',
  LV: '371',
  LT: '370',
  CY: '357',
  MT: '356',
  RS: '381',
  UA: '380',
  BY: '375',
  RU: '7',
  TR: '90',
  IL: '972',
  SA: '966',
  AE: '971',
  QA: '974',
  KW: '965',
  BH: '973',
  OM: '968',
  JO: '962',
  IR: '98',
  EG: '20',
  MA: '212',
  TN: '216',
  ZA: '27',
  NG: '234',
  KE: '254',
};

export interface PhoneCountry extends CountryNames {
  /** ISO 3166-1 alpha-2, upper case. */
  code: NamedCountryCode;
  /** Calling code with its plus sign, e.g. "+86". */
  dialCode: string;
}

/** China and its special administrative regions first, then by region (as COUNTRY_NAMES). */
export const PHONE_COUNTRIES: readonly PhoneCountry[] = Object.freeze(
  (Object.keys(COUNTRY_NAMES) as NamedCountryCode[]).map((code) =>
    Object.freeze({ code, ...COUNTRY_NAMES[code], dialCode: `+${DIAL_DIGITS[code]}` }),
  ),
);

/** "+86" for "CN"; undefined for a code not in the table. */
export function dialCodeOf(isoCode: string): string | undefined {
  return isNamedCountryCode(isoCode) ? `+${DIAL_DIGITS[isoCode]}` : undefined;
}
