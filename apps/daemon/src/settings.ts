import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CAPABILITY_STRING, parseCapabilities, parseModuleList, type Capability } from '@portico/schema';

/** How configuration reaches the system (DESIGN §5). */
export const DRIVERS = ['sim', 'linux', 'openwrt'] as const;
export type DriverName = (typeof DRIVERS)[number];

export interface Settings {
  /** Folder of the database, the initial password file and the driver's files. */
  stateDir: string;
  port: number;
  host: string;
  /** Port of the captive portal listener, apart from the admin console's. */
  portalPort: number;
  /** Port of the wireless controller's device listener (TLS WebSocket; OpenWiFi devices dial 15002). */
  wirelessPort: number;
  driver: DriverName;
  /** The capability string as configured (spec, general facts). */
  capabilityString: string;
  capabilities: ReadonlySet<Capability>;
  disabledModules: ReadonlySet<string>;
  logLevel: string;
  consoleDir: string;
  portalDir: string;
  /** Host names accepted in the Host header besides IP literals, localhost and the host name. */
  allowedHosts: readonly string[];
  /** Seconds without a request after which a session ends. */
  sessionIdle: number;
  /** Seconds after sign-in after which a session ends whatever its use. */
  sessionMax: number;
  tlsCert?: string;
  tlsKey?: string;
  /** Folder the linux driver installs rendered files under; `/` on a device. */
  systemRoot: string;
  /** Seconds a change that can cut the administrator off waits for its confirmation. */
  confirmSeconds: number;
  /** Physical ports of the factory LAN (first start only); empty: no factory network. */
  factoryLanPorts: string[];
  /** Physical ports of the factory WANs, by DHCP (first start only, with a factory LAN). */
  factoryWanPorts: string[];
  /**
   * Where Smart QoS shapes download traffic (qos-plan.ts): on an IFB device per WAN, the
   * connection's class copied by tc's ctinfo action (`ifb`) or by the daemon's eBPF classifier
   * (`ifb-bpf`), on the LAN side, or `auto`, IFB where the running kernel has what it needs
   * (qos-kernel.ts).
   */
  qosDownload?: QosDownloadSetting;
  /** Address of the update server's latest-firmware manifest (http or https); empty: none. */
  updateUrl?: string;
  /** Ed25519 public key (PEM) firmware images must be signed with. */
  firmwareKeyFile?: string;
  /** Address of the licence server's activation endpoint (http or https); empty: none. */
  licenseUrl?: string;
  /** Ed25519 public key (PEM) licence files must be signed with. */
  licenseKeyFile?: string;
  /**
   * The program the browser terminal (/rtty) runs on its PTY, as an argument vector: the
   * device's own sign-in by default, as OpenWrt's rtty does. Never run through a shell.
   */
  rttyCommand?: readonly string[];
}

/** An argument vector split on spaces (no quoting, no shell); its program an absolute path. */
function commandVector(env: NodeJS.ProcessEnv, name: string, fallback: string): string[] {
  const argv = (env[name]?.trim() || fallback).split(/\s+/);
  if (!argv[0]!.startsWith('/')) throw new SettingsError(`${name} must start with an absolute program path, got "${argv[0]}"`);
  return argv;
}

/** An http(s) address or empty; anything else stops the start. */
function serviceUrl(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]?.trim() ?? '';
  if (value === '') return '';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingsError(`${name} must be an http or https address, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SettingsError(`${name} must be an http or https address, got "${value}"`);
  return url.href;
}

export const QOS_DOWNLOAD_SETTINGS = ['auto', 'ifb', 'ifb-bpf', 'lan'] as const;
export type QosDownloadSetting = (typeof QOS_DOWNLOAD_SETTINGS)[number];

/** The simulated device's ports: the first is its WAN, the others bridge its LAN. */
const SIM_FACTORY_PORTS = { wan: 'eth0', lan: 'eth1 eth2 eth3' } as const;

export class SettingsError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The repository root as seen from the daemon's own file (src/ or dist/ are both two levels deep). */
function appsRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new SettingsError(`${name} must be an integer between 1 and ${max}, got "${raw}"`);
  }
  return value;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(/[\s,]+/)
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '');
}

/** Reads the daemon's settings from the environment; throws SettingsError with a readable message. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const driver = (env.PORTICO_DRIVER ?? 'sim').trim() || 'sim';
  if (!(DRIVERS as readonly string[]).includes(driver)) {
    throw new SettingsError(`PORTICO_DRIVER must be one of ${DRIVERS.join(', ')}, got "${driver}"`);
  }
  const logLevel = (env.PORTICO_LOG_LEVEL ?? 'info').trim() || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new SettingsError(`PORTICO_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const tlsCert = env.PORTICO_TLS_CERT?.trim() || undefined;
  const tlsKey = env.PORTICO_TLS_KEY?.trim() || undefined;
  if (Boolean(tlsCert) !== Boolean(tlsKey)) {
    throw new SettingsError('PORTICO_TLS_CERT and PORTICO_TLS_KEY must be set together');
  }
  const capabilityString = env.PORTICO_CAPABILITIES ?? DEFAULT_CAPABILITY_STRING;
  const port = positiveInt(env, 'PORTICO_PORT', 8080, 65535);
  const portalPort = positiveInt(env, 'PORTICO_PORTAL_PORT', 2050, 65535);
  if (portalPort === port) throw new SettingsError('PORTICO_PORTAL_PORT must differ from PORTICO_PORT');
  const wirelessPort = positiveInt(env, 'PORTICO_WIRELESS_PORT', 15002, 65535);
  if (wirelessPort === port || wirelessPort === portalPort) throw new SettingsError('PORTICO_WIRELESS_PORT must differ from PORTICO_PORT and PORTICO_PORTAL_PORT');
  const root = appsRoot();
  const qosDownload = (env.PORTICO_QOS_DOWNLOAD ?? 'auto').trim() || 'auto';
  if (!(QOS_DOWNLOAD_SETTINGS as readonly string[]).includes(qosDownload)) {
    throw new SettingsError(`PORTICO_QOS_DOWNLOAD must be one of ${QOS_DOWNLOAD_SETTINGS.join(', ')}, got "${qosDownload}"`);
  }
  return {
    qosDownload: qosDownload as QosDownloadSetting,
    stateDir: resolve(env.PORTICO_STATE_DIR?.trim() || './var'),
    port,
    portalPort,
    wirelessPort,
    host: env.PORTICO_HOST?.trim() || '0.0.0.0',
    driver: driver as Settings['driver'],
    capabilityString,
    capabilities: parseCapabilities(capabilityString),
    disabledModules: parseModuleList(env.PORTICO_DISABLED_MODULES),
    logLevel,
    consoleDir: resolve(env.PORTICO_CONSOLE_DIR?.trim() || resolve(root, 'console', 'dist')),
    portalDir: resolve(env.PORTICO_PORTAL_DIR?.trim() || resolve(root, 'portal', 'dist')),
    allowedHosts: list(env.PORTICO_ALLOWED_HOSTS),
    sessionIdle: positiveInt(env, 'PORTICO_SESSION_IDLE', 1800, 30 * 86400),
    sessionMax: positiveInt(env, 'PORTICO_SESSION_MAX', 43200, 365 * 86400),
    tlsCert,
    tlsKey,
    systemRoot: resolve(env.PORTICO_SYSTEM_ROOT?.trim() || '/'),
    confirmSeconds: positiveInt(env, 'PORTICO_CONFIRM_SECONDS', 90, 3600),
    // The simulated device has its ports named: it starts with its factory network laid down.
    factoryLanPorts: list(env.PORTICO_LAN_PORTS ?? (driver === 'sim' ? SIM_FACTORY_PORTS.lan : '')),
    factoryWanPorts: list(env.PORTICO_WAN_PORTS ?? (driver === 'sim' ? SIM_FACTORY_PORTS.wan : '')),
    updateUrl: serviceUrl(env, 'PORTICO_UPDATE_URL'),
    firmwareKeyFile: resolve(env.PORTICO_FIRMWARE_KEY?.trim() || '/etc/portico/keys/firmware-signing.pem'),
    licenseUrl: serviceUrl(env, 'PORTICO_LICENSE_URL'),
    licenseKeyFile: resolve(env.PORTICO_LICENSE_KEY?.trim() || '/etc/portico/keys/license-signing.pem'),
    rttyCommand: commandVector(env, 'PORTICO_RTTY_COMMAND', '/bin/login'),
  };
}
