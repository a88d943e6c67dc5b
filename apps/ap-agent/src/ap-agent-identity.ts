import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isSafeText, SERIAL_PATTERN } from '@portico/schema';
import { AGENT_VERSION } from './ap-agent-version.js';

/**
 * Who the unit says it is in `connect`: its serial (by convention the MAC of its first wired
 * port, without separators) and its firmware version.
 */

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * The MAC of the first wired interface by name: a physical device (`device` link), Ethernet
 * (`type` 1), neither a radio (`wireless`, `phy80211`) nor loopback.
 */
export async function wiredSerial(sysClassNet = '/sys/class/net'): Promise<string | null> {
  for (const name of (await readdir(sysClassNet).catch(() => [] as string[])).sort()) {
    const dir = join(sysClassNet, name);
    if (!(await exists(join(dir, 'device'))) || (await exists(join(dir, 'wireless'))) || (await exists(join(dir, 'phy80211')))) continue;
    if ((await readFile(join(dir, 'type'), 'utf8').catch(() => '')).trim() !== '1') continue;
    const serial = (await readFile(join(dir, 'address'), 'utf8').catch(() => '')).trim().toLowerCase().replaceAll(':', '');
    if (SERIAL_PATTERN.test(serial) && serial !== '000000000000') return serial;
  }
  return null;
}

/**
 * The version the settings give, else the agent's own when the agent is what gets flashed
 * (`versionOf: 'agent'`), else the distribution's own release file.
 */
export async function firmwareVersion(configured: string | undefined, etc = '/etc', versionOf: 'system' | 'agent' = 'system'): Promise<string> {
  if (configured) return configured;
  if (versionOf === 'agent') return AGENT_VERSION;
  for (const [file, prefix] of [
    ['openwrt_version', 'OpenWrt'],
    ['debian_version', 'Debian'],
  ] as const) {
    const text = (await readFile(join(etc, file), 'utf8').catch(() => '')).trim();
    const version = `${prefix} ${text}`.slice(0, 128);
    if (text && isSafeText(version)) return version;
  }
  return 'unknown';
}
