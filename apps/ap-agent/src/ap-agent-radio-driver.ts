import type { Association, ScanEntry, UcentralBand } from '@portico/schema';
import type { ConfigPlan } from './ap-agent-config-plan.js';

/**
 * What the session asks of the radios, whatever runs them. The hostapd implementation is
 * ap-agent-hostapd-driver.ts; tests use a fake (test/fake-radio-driver.ts).
 */

export interface RadioSnapshot {
  index: number;
  band: UcentralBand;
  channel?: number;
  width?: number;
  txPowerDbm?: number;
}

export interface BssSnapshot {
  radioIndex: number;
  /** The Linux interface of the BSS (wlan0, wlan0-1) or of the station link. */
  ifname: string;
  interfaceName: string;
  bssid: string;
  ssid: string;
  mode: 'ap' | 'wds-ap' | 'wds-sta';
  band: UcentralBand;
  channel?: number;
  associations: Association[];
  /** The SSID's roaming threshold, when it steers with 802.11v. */
  steeringThreshold?: number;
}

export interface DriverSnapshot {
  radios: RadioSnapshot[];
  bsses: BssSnapshot[];
}

export interface HealthCheck {
  /** What was checked, e.g. `hostapd wlan0`. */
  name: string;
  ok: boolean;
}

export interface ScanRequest {
  bands?: ReadonlyArray<'2' | '5'>;
  channels?: readonly number[];
  active: boolean;
}

export interface SteeringRequest {
  /** The BSS the station is on. */
  ifname: string;
  station: string;
  candidates: ReadonlyArray<{ bssid: string; channel: number; band: UcentralBand; width: number }>;
}

export interface RadioDriver {
  /** Makes the radios run the plan; the previous plan (if any) is what is running now. */
  apply(plan: ConfigPlan): Promise<void>;
  snapshot(): Promise<DriverSnapshot>;
  health(): Promise<HealthCheck[]>;
  scan(request: ScanRequest): Promise<ScanEntry[]>;
  steer(request: SteeringRequest): Promise<void>;
  setTxPower(radioIndex: number, dBm: number): Promise<void>;
  switchChannel(radioIndex: number, channel: number): Promise<void>;
}
