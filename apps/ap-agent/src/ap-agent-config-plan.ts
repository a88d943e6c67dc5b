import { isIP } from 'node:net';
import { getCountry, isChannelAllowed, type DeviceConfig, type SsidConfig, type UcentralBand } from '@portico/schema';
import type { AgentSettings } from './ap-agent-settings.js';

/**
 * What a configuration document means on this unit: for each radio its Linux interface, the
 * channel and width it may really use, and the BSSes (or the one station link of a CPE
 * receiver) it carries. Planning is pure. Anything the unit can run in a nearby form is
 * substituted and reported (`configure` answers 1); anything it cannot run at all refuses the
 * whole document (answer 2) so the radios keep the previous one.
 *
 * Reasons are i18n keys under `ucentral.reject.*`: the controller's console shows them.
 */

export interface Rejection {
  /** The part of the document concerned, by path: `{ "radios[1].channel": 52 }`. */
  parameter: Record<string, unknown>;
  reason: string;
  /** What the unit runs instead; absent when the part was refused or removed. */
  substitution?: Record<string, unknown>;
}

export const REJECT_REASONS = {
  noSuchRadio: 'ucentral.reject.noSuchRadio',
  countryUnknown: 'ucentral.reject.countryUnknown',
  channelNotAllowed: 'ucentral.reject.channelNotAllowed',
  dfsNotAllowed: 'ucentral.reject.dfsNotAllowed',
  widthNotAvailable: 'ucentral.reject.widthNotAvailable',
  noRadioForBand: 'ucentral.reject.noRadioForBand',
  tooManySsids: 'ucentral.reject.tooManySsids',
  stationNotAlone: 'ucentral.reject.stationNotAlone',
  stationEnterprise: 'ucentral.reject.stationEnterprise',
  radiusHostNotAddress: 'ucentral.reject.radiusHostNotAddress',
  vlanWithoutBridge: 'ucentral.reject.vlanWithoutBridge',
  mfpRequired: 'ucentral.reject.mfpRequired',
  invalid: 'ucentral.reject.invalid',
  applyFailed: 'ucentral.reject.applyFailed',
  wiredPort: 'ucentral.reject.wiredPort',
} as const;

export type ChannelWidthMhz = 20 | 40 | 80;
/** 802.11w: 0 off, 1 capable, 2 required. */
export type MfpLevel = 0 | 1 | 2;

export interface BssPlan {
  /** wlan0 for the first SSID of a radio, then wlan0-1, wlan0-2 … */
  ifname: string;
  /** The configuration interface the SSID belongs to (state is grouped by it). */
  interfaceName: string;
  ssid: SsidConfig;
  mfp: MfpLevel;
  bridge?: string;
}

export interface RadioPlan {
  index: number;
  phy: string;
  ifname: string;
  /** hostapd's driver: `wired` is an 802.1X authenticator on an Ethernet port. */
  driver: 'nl80211' | 'wired';
  band: UcentralBand;
  country: string;
  channel: number | 'auto';
  width: ChannelWidthMhz;
  /** Where the 40 MHz secondary channel sits: +1 above (HT40+), -1 below (HT40-), 0 at 20 MHz. */
  secondaryOffset: 1 | -1 | 0;
  txPowerDbm?: number;
  rtsThreshold: number;
  allowDfs: boolean;
  /** Access point BSSes; empty for an unused radio or a station link. */
  bsses: BssPlan[];
  /** A CPE receiver's link to its base station (wds-sta): the radio is a station. */
  station?: BssPlan;
}

export interface ConfigPlan {
  uuid: number;
  radios: RadioPlan[];
}

export type PlanOutcome = { ok: true; plan: ConfigPlan; substitutions: Rejection[] } | { ok: false; refusals: Rejection[] };

/** 5 GHz channels that need radar detection (U-NII-2A and U-NII-2C). */
export function isDfsChannel(band: UcentralBand, channel: number): boolean {
  return band === '5G' && channel >= 52 && channel <= 144;
}

const lowerBand = (band: UcentralBand) => (band === '2G' ? '2g' : '5g');

/** The channel a 40 MHz pair adds to `channel`: +4 (HT40+) or -4 (HT40-), or null if none fits. */
export function secondaryChannel(band: UcentralBand, channel: number, usable: (c: number) => boolean): number | null {
  if (band === '5G') {
    // 5 GHz pairs are fixed: 36+40, 44+48 … 149+153, 157+161.
    const partner = Math.floor(channel / 4) % 2 === 1 ? channel + 4 : channel - 4;
    return usable(partner) ? partner : null;
  }
  if (usable(channel + 4) && channel + 4 <= 13) return channel + 4;
  if (channel - 4 >= 1 && usable(channel - 4)) return channel - 4;
  return null;
}

/** The four 20 MHz channels of the 80 MHz block holding `channel` (36-48, 52-64 … 149-161). */
export function block80(channel: number): number[] {
  const base = channel >= 149 ? 149 : 36;
  const first = base + Math.floor((channel - base) / 16) * 16;
  return [first, first + 4, first + 8, first + 12];
}

/** The centre channel index of an 80 MHz block (vht_oper_centr_freq_seg0_idx). */
export function centre80(channel: number): number {
  return block80(channel)[0]! + 6;
}

export interface ChannelFit {
  channel: number | 'auto';
  width: ChannelWidthMhz;
  secondaryOffset: 1 | -1 | 0;
  /** Why the channel became 'auto', when it did. */
  channelReason?: string;
}

/**
 * The channel and width a radio can really use: a channel the country does not allow, or a
 * radar channel without `allow-dfs`, becomes 'auto'; a width whose other channels are not
 * usable narrows (80 → 40 → 20 MHz).
 */
export function fitChannel(radio: { band: UcentralBand; country: string; allowDfs: boolean; channel: number | 'auto'; width: ChannelWidthMhz }): ChannelFit {
  const band = radio.band;
  const usable = (c: number) => isChannelAllowed(radio.country, lowerBand(band), c) && (radio.allowDfs || !isDfsChannel(band, c));
  let channel = radio.channel;
  let channelReason: string | undefined;
  if (channel !== 'auto' && !usable(channel)) {
    channelReason = isChannelAllowed(radio.country, lowerBand(band), channel) ? REJECT_REASONS.dfsNotAllowed : REJECT_REASONS.channelNotAllowed;
    channel = 'auto';
  }
  const fixed = channel;
  const fits = (w: ChannelWidthMhz): boolean => {
    if (w === 20) return true;
    if (w === 80 && band === '2G') return false;
    if (fixed === 'auto') return true;
    if (w === 40) return secondaryChannel(band, fixed, usable) !== null;
    return block80(fixed).every(usable);
  };
  let width = radio.width;
  while (!fits(width)) width = width === 80 ? 40 : 20;
  const partner = width === 20 ? null : fixed === 'auto' ? Infinity : secondaryChannel(band, fixed, usable);
  const secondaryOffset = partner === null ? 0 : fixed === 'auto' || partner > fixed ? 1 : -1;
  return { channel, width, secondaryOffset, ...(channelReason ? { channelReason } : {}) };
}

function ieee80211wLevel(ssid: SsidConfig): MfpLevel {
  return ssid.encryption.ieee80211w === 'required' ? 2 : ssid.encryption.ieee80211w === 'optional' ? 1 : 0;
}

/** The 802.11w level the encryption needs: SAE alone requires it, WPA3 transition at least offers it. */
function mfpFor(ssid: SsidConfig): MfpLevel {
  const asked = ieee80211wLevel(ssid);
  switch (ssid.encryption.proto) {
    case 'none':
      return 0;
    case 'sae':
      return 2;
    case 'psk2-sae':
      return asked === 0 ? 1 : asked;
    default:
      return asked;
  }
}

function planRadio(config: DeviceConfig, index: number, settings: AgentSettings, out: { subs: Rejection[]; refusals: Rejection[] }): RadioPlan | null {
  const radio = config.radios[index]!;
  const where = `radios[${index}]`;
  const device = settings.radios[index];
  if (!device) {
    out.refusals.push({ parameter: { [where]: radio.band }, reason: REJECT_REASONS.noSuchRadio });
    return null;
  }
  if (!getCountry(radio.country)) {
    out.refusals.push({ parameter: { [`${where}.country`]: radio.country }, reason: REJECT_REASONS.countryUnknown });
    return null;
  }
  const fit = fitChannel({ band: radio.band, country: radio.country, allowDfs: radio['allow-dfs'], channel: radio.channel, width: radio['channel-width'] });
  if (fit.channel !== radio.channel) {
    out.subs.push({ parameter: { [`${where}.channel`]: radio.channel }, reason: fit.channelReason!, substitution: { [`${where}.channel`]: fit.channel } });
  }
  if (fit.width !== radio['channel-width']) {
    out.subs.push({
      parameter: { [`${where}.channel-width`]: radio['channel-width'] },
      reason: REJECT_REASONS.widthNotAvailable,
      substitution: { [`${where}.channel-width`]: fit.width },
    });
  }
  return {
    index,
    phy: device.phy,
    ifname: device.interface,
    driver: device.driver,
    band: radio.band,
    country: radio.country,
    channel: fit.channel,
    width: fit.width,
    secondaryOffset: fit.secondaryOffset,
    ...(radio['tx-power'] === undefined ? {} : { txPowerDbm: radio['tx-power'] }),
    rtsThreshold: radio['rts-threshold'],
    allowDfs: radio['allow-dfs'],
    bsses: [],
  };
}

function checkSsid(ssid: SsidConfig, where: string, out: { subs: Rejection[]; refusals: Rejection[] }): boolean {
  let ok = true;
  const radius = ssid.radius;
  for (const [role, server] of [['authentication', radius?.authentication], ['accounting', radius?.accounting]] as const) {
    // hostapd reads RADIUS servers as IP addresses only; it never resolves a name.
    if (server && isIP(server.host) === 0) {
      out.refusals.push({ parameter: { [`${where}.radius.${role}.host`]: server.host }, reason: REJECT_REASONS.radiusHostNotAddress });
      ok = false;
    }
  }
  if (ssid['bss-mode'] === 'wds-sta' && ssid.encryption.proto === 'wpa2') {
    out.refusals.push({ parameter: { [`${where}.encryption.proto`]: 'wpa2' }, reason: REJECT_REASONS.stationEnterprise });
    ok = false;
  }
  const mfp = mfpFor(ssid);
  if (mfp !== ieee80211wLevel(ssid)) {
    const names = ['disabled', 'optional', 'required'] as const;
    out.subs.push({
      parameter: { [`${where}.encryption.ieee80211w`]: ssid.encryption.ieee80211w },
      reason: REJECT_REASONS.mfpRequired,
      substitution: { [`${where}.encryption.ieee80211w`]: names[mfp] },
    });
  }
  return ok;
}

/** Plans a validated configuration document for this unit. */
export function planConfig(config: DeviceConfig, uuid: number, settings: AgentSettings): PlanOutcome {
  const out = { subs: [] as Rejection[], refusals: [] as Rejection[] };
  const radios = config.radios.map((_, index) => planRadio(config, index, settings, out));
  config.interfaces.forEach((iface, i) => {
    let bridge: string | undefined = settings.bridges[iface.role];
    if (iface.vlan) {
      bridge = settings.vlanBridges[String(iface.vlan.id)];
      if (!bridge) out.refusals.push({ parameter: { [`interfaces[${i}].vlan.id`]: iface.vlan.id }, reason: REJECT_REASONS.vlanWithoutBridge });
    }
    iface.ssids.forEach((ssid, s) => {
      const where = `interfaces[${i}].ssids[${s}]`;
      if (!checkSsid(ssid, where, out)) return;
      for (const band of ssid['wifi-bands']) {
        const carriers = radios.filter((r): r is RadioPlan => r !== null && r.band === band);
        if (carriers.length === 0 && !config.radios.some((r) => r.band === band)) {
          out.refusals.push({ parameter: { [`${where}.wifi-bands`]: band }, reason: REJECT_REASONS.noRadioForBand });
        }
        for (const radio of carriers) {
          // A wired port carries one 802.1X authenticator: no PSK, no WDS, no second BSS.
          if (radio.driver === 'wired' && (ssid.encryption.proto !== 'wpa2' || ssid['bss-mode'] !== 'ap' || radio.bsses.length > 0)) {
            out.refusals.push({ parameter: { [where]: ssid.name }, reason: REJECT_REASONS.wiredPort });
            continue;
          }
          const bss: BssPlan = { ifname: '', interfaceName: iface.name, ssid, mfp: mfpFor(ssid), ...(bridge ? { bridge } : {}) };
          if (ssid['bss-mode'] === 'wds-sta') {
            if (radio.station || radio.bsses.length > 0) out.refusals.push({ parameter: { [where]: ssid.name }, reason: REJECT_REASONS.stationNotAlone });
            radio.station = { ...bss, ifname: radio.ifname };
          } else {
            if (radio.station) out.refusals.push({ parameter: { [where]: ssid.name }, reason: REJECT_REASONS.stationNotAlone });
            const n = radio.bsses.length;
            if (n >= settings.maxBssPerRadio) {
              out.refusals.push({ parameter: { [where]: ssid.name }, reason: REJECT_REASONS.tooManySsids });
              continue;
            }
            radio.bsses.push({ ...bss, ifname: n === 0 ? radio.ifname : `${radio.ifname}-${n}` });
          }
        }
      }
    });
  });
  if (out.refusals.length > 0 || radios.some((r) => r === null)) return { ok: false, refusals: out.refusals };
  return { ok: true, plan: { uuid, radios: radios as RadioPlan[] }, substitutions: out.subs };
}
