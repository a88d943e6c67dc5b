import { z } from 'zod';
import { CHANNEL_WIDTHS, htmodesFor, WIFI_AUTO, type Htmode, type WifiBand } from './wifi-channels.js';
import { getCountry, isChannelAllowed } from './wifi-country-catalogue.js';
import { TX_POWER_MAX_DBM, TX_POWER_MIN_DBM } from './wifi-tx-power.js';

/** A two-letter code listed in the Wi-Fi country catalogue. */
export function countryCodeField() {
  return z
    .string({ error: 'validation.wifi.country' })
    .refine((code) => getCountry(code) !== undefined, { error: 'validation.wifi.country' })
    .meta({ description: 'ISO 3166-1 alpha-2 code listed in the Wi-Fi country catalogue' });
}

/**
 * 'auto' or a channel the country allows on that band. When the country is another field of
 * the same form, check the pair with `isChannelAllowed` in the entity's refine instead.
 */
export function channelField(code: string, band: WifiBand) {
  const error = 'validation.wifi.channel';
  return z
    .union([z.literal(WIFI_AUTO), z.number({ error }).int({ error })], { error })
    .refine((value) => isChannelAllowed(code, band, value), { error });
}

/** 'auto' or a whole number of dBm from 1 to 30. */
export function txPowerField() {
  const error = 'validation.wifi.txPower';
  return z.union(
    [
      z.literal(WIFI_AUTO),
      z.number({ error }).int({ error }).min(TX_POWER_MIN_DBM, { error }).max(TX_POWER_MAX_DBM, { error }),
    ],
    { error },
  );
}

/** An htmode offered on that band (HT80 only on 5 GHz). */
export function htmodeField(band: WifiBand) {
  const values = htmodesFor(band).map((option) => option.value);
  return z.enum(values as [Htmode, ...Htmode[]], { error: 'validation.wifi.htmode' });
}

/** 'auto', 20, 40 or 80 MHz. */
export function channelWidthField() {
  return z.literal(CHANNEL_WIDTHS, { error: 'validation.wifi.channelWidth' });
}
