import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import { deviceConfigSchema, ssidConfigSchema, type DeviceConfig, type DeviceConfigInput } from '@portico/schema';
import { agentSettingsSchema, type AgentSettings, type AgentSettingsInput } from '../src/ap-agent-settings.js';
import type { RenderPaths } from '../src/ap-agent-hostapd-config.js';

export const SERIAL = '0242ac110002';

export function tempDir(prefix = 'ap-agent-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Two radios: phy0/wlan0 (the configuration's radio 0) and phy1/wlan1 (radio 1). */
export function agentSettings(overrides: Partial<AgentSettingsInput> = {}): AgentSettings {
  const dir = tempDir();
  return agentSettingsSchema.parse({
    controller: { host: '127.0.0.1' },
    serial: SERIAL,
    tls: { cert: '/etc/portico-agent/cert.pem', key: '/etc/portico-agent/key.pem', ca: '/etc/portico-agent/ca.pem' },
    radios: [
      { phy: 'phy0', interface: 'wlan0' },
      { phy: 'phy1', interface: 'wlan1' },
    ],
    stateDir: join(dir, 'state'),
    runDir: join(dir, 'run'),
    bridges: { upstream: 'br-lan' },
    ...overrides,
  });
}

export function renderPaths(settings: AgentSettings): RenderPaths {
  return { confDir: join(settings.runDir, 'conf'), hostapdControlDir: settings.hostapdControlDir, supplicantControlDir: settings.supplicantControlDir };
}

type SsidInput = z.input<typeof ssidConfigSchema>;

export function ssid(overrides: Partial<SsidInput> = {}): SsidInput {
  return { name: 'Office', 'wifi-bands': ['2G'], encryption: { proto: 'psk2', key: 'correct horse battery' }, ...overrides };
}

/** A China-regulated unit: 2.4 GHz channel 6 and 5 GHz channel 36 at 80 MHz, one SSID given. */
export function configInput(ssids: SsidInput[] = [ssid()], overrides: Partial<DeviceConfigInput> = {}): DeviceConfigInput {
  return {
    uuid: 1,
    radios: [
      { band: '2G', country: 'CN', channel: 6 },
      { band: '5G', country: 'CN', channel: 36, 'channel-width': 80 },
    ],
    interfaces: [{ name: 'lan', role: 'upstream', ssids }],
    ...overrides,
  };
}

export function deviceConfig(ssids?: SsidInput[], overrides?: Partial<DeviceConfigInput>): DeviceConfig {
  return deviceConfigSchema.parse(configInput(ssids, overrides));
}
