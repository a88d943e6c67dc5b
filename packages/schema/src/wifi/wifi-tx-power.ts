import { WIFI_AUTO, type WifiAuto } from './wifi-channels.js';

/** Transmit power (spec §3, §9): 'auto' or a whole number of dBm from 1 to 30. */
export const TX_POWER_MIN_DBM = 1;
export const TX_POWER_MAX_DBM = 30;

export type TxPower = WifiAuto | number;

/** 'auto' first, then 1..30 dBm. */
export const TX_POWER_OPTIONS: readonly TxPower[] = Object.freeze([
  WIFI_AUTO,
  ...Array.from({ length: TX_POWER_MAX_DBM - TX_POWER_MIN_DBM + 1 }, (_, i) => TX_POWER_MIN_DBM + i),
]);

export function isTxPower(value: unknown): value is TxPower {
  if (value === WIFI_AUTO) return true;
  return typeof value === 'number' && Number.isInteger(value) && value >= TX_POWER_MIN_DBM && value <= TX_POWER_MAX_DBM;
}
