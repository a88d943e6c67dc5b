import {
  MAC_FILTER_ALL_GROUPS,
  WIFI_AUTO,
  type ApGroup,
  type ApMacFilter,
  type CpeProfile,
  type DeviceConfigInput,
  type WirelessSsid,
} from '@portico/schema';

/**
 * What an adopted device is told to run, built from the console's rows: an AP from its
 * group (radios, SSIDs, MAC list, roaming), a CPE from its profile. The `uuid` is the
 * controller's business (a version per device); these builders leave it 0.
 */

type SsidConfig = DeviceConfigInput['interfaces'][number]['ssids'] extends infer L ? (L extends Array<infer S> ? S : never) : never;

/** Health reports come less often than state reports: every fifth, at least once a minute. */
const HEALTH_PER_STATE = 5;

function encryptionOf(ssid: WirelessSsid): SsidConfig['encryption'] {
  switch (ssid.security) {
    case 'open':
      return { proto: 'none', ieee80211w: 'disabled' };
    case 'wpa2psk':
      return { proto: 'psk2', key: ssid.key, ieee80211w: 'optional' };
    case 'wpa3sae':
      return { proto: 'sae', key: ssid.key, ieee80211w: 'required' };
    case 'wpa2wpa3':
      return { proto: 'psk2-sae', key: ssid.key, ieee80211w: 'optional' };
    case 'wpa2enterprise':
      return { proto: 'wpa2', ieee80211w: 'optional' };
  }
}

/** The MAC access list of a group: its own entries and those for every group. */
function accessListOf(group: ApGroup, filters: readonly ApMacFilter[]): SsidConfig['access-control-list'] {
  if (group.macFilter === 'off') return undefined;
  const macs = filters
    .filter((f) => f.list === group.macFilter && (f.group === group.id || f.group === MAC_FILTER_ALL_GROUPS))
    .map((f) => f.mac);
  return { mode: group.macFilter === 'whitelist' ? 'allow' : 'deny', 'mac-address': [...new Set(macs)].sort() };
}

/** A radio's channel from a saved channel plan; used where the group says `auto`. */
export interface PlannedChannel {
  band: '2g' | '5g';
  channel: number;
  width: number;
}

export function apDeviceConfig(
  group: ApGroup,
  ssids: readonly WirelessSsid[],
  filters: readonly ApMacFilter[],
  unitName?: string,
  planned: readonly PlannedChannel[] = [],
): DeviceConfigInput {
  const plannedOn = (band: '2g' | '5g', channel: ApGroup['channel2g']) =>
    channel === WIFI_AUTO ? planned.find((p) => p.band === band) : undefined;
  const plan2g = plannedOn('2g', group.channel2g);
  const plan5g = plannedOn('5g', group.channel5g);
  const radios: DeviceConfigInput['radios'] = [];
  if (group.enabled2g) {
    radios.push({
      band: '2G',
      country: group.country,
      channel: plan2g?.channel ?? group.channel2g,
      'channel-width': (plan2g?.width ?? group.width2g) as 20 | 40,
      ...(group.power2g === WIFI_AUTO ? {} : { 'tx-power': group.power2g }),
      'rts-threshold': group.rts,
      'allow-dfs': false,
    });
  }
  if (group.enabled5g) {
    radios.push({
      band: '5G',
      country: group.country,
      channel: plan5g?.channel ?? group.channel5g,
      'channel-width': (plan5g?.width ?? group.width5g) as 20 | 40 | 80,
      ...(group.power5g === WIFI_AUTO ? {} : { 'tx-power': group.power5g }),
      'rts-threshold': group.rts,
      'allow-dfs': group.allowDfs,
    });
  }
  const bands = radios.map((r) => r.band);
  const acl = accessListOf(group, filters);
  const byVlan = new Map<number, SsidConfig[]>();
  for (const ssid of ssids) {
    if (!ssid.enabled || ssid.group !== group.id) continue;
    const wanted = ssid.band === 'both' ? bands : bands.filter((b) => b === (ssid.band === '2g' ? '2G' : '5G'));
    // An SSID on a band the group switched off has nowhere to beacon.
    if (!wanted.length) continue;
    const config: SsidConfig = {
      name: ssid.ssid,
      'wifi-bands': wanted,
      'bss-mode': 'ap',
      'hidden-ssid': ssid.hidden,
      'isolate-clients': ssid.isolate,
      'maximum-clients': ssid.maxClients,
      encryption: encryptionOf(ssid),
      ...(ssid.security === 'wpa2enterprise'
        ? { radius: { authentication: { host: ssid.radiusHost, port: ssid.radiusPort, secret: ssid.radiusSecret } } }
        : {}),
      ...(acl ? { 'access-control-list': acl } : {}),
      ...(group.roaming
        ? { rrm: { 'neighbor-reporting': true }, 'portico-steering': { 'bss-transition': true, 'rssi-threshold': group.roamingThreshold } }
        : {}),
    };
    const list = byVlan.get(ssid.vlan) ?? [];
    list.push(config);
    byVlan.set(ssid.vlan, list);
  }
  const interfaces = [...byVlan.entries()]
    .sort(([a], [b]) => a - b)
    .map(([vlan, list]) => ({
      name: vlan === 0 ? 'lan' : `lan${vlan}`,
      role: 'downstream' as const,
      ...(vlan === 0 ? {} : { vlan: { id: vlan } }),
      ssids: list,
    }));
  return {
    uuid: 0,
    unit: { ...(unitName ? { name: unitName } : {}), 'leds-active': true },
    radios,
    interfaces,
    metrics: { statistics: { interval: group.reportInterval }, health: { interval: Math.max(60, group.reportInterval * HEALTH_PER_STATE) } },
  };
}

export function cpeDeviceConfig(profile: CpeProfile, unitName?: string): DeviceConfigInput {
  const band = profile.band === '2g' ? '2G' : '5G';
  return {
    uuid: 0,
    unit: { ...(unitName ? { name: unitName } : {}), 'leds-active': true, ...(profile.rebootTime ? { 'portico-reboot-time': profile.rebootTime } : {}) },
    radios: [
      {
        band,
        country: profile.country,
        channel: profile.channel,
        'channel-width': profile.width,
        ...(profile.power === WIFI_AUTO ? {} : { 'tx-power': profile.power }),
        'rts-threshold': profile.rts,
        'allow-dfs': false,
      },
    ],
    interfaces: [
      {
        name: 'lan',
        role: 'downstream',
        ssids: [
          {
            name: profile.ssid,
            'wifi-bands': [band],
            'bss-mode': profile.mode === 'base' ? 'wds-ap' : 'wds-sta',
            encryption: { proto: 'psk2', key: profile.key, ieee80211w: 'optional' },
            'portico-reject-rssi': profile.rejectRssi,
          },
        ],
      },
    ],
    metrics: { statistics: { interval: 60 }, health: { interval: 300 } },
  };
}
