import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { isSafeText, serialField } from '@portico/schema';

/**
 * The agent's own settings: /etc/portico-agent/agent.json, written once when the access point is
 * installed. Everything the controller cannot know lives here: where the controller is, the
 * device's certificate, which Linux interface each radio of the configuration document drives,
 * the key firmware images must be signed with, and the commands that reboot or flash the unit.
 */

export const DEFAULT_SETTINGS_PATH = '/etc/portico-agent/agent.json';

/** A Linux interface name: up to 15 characters, never option-looking. */
const ifname = () => z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$/);
const absolutePath = () =>
  z
    .string()
    .min(2)
    .max(255)
    .refine((v) => isAbsolute(v) && isSafeText(v) && !v.split('/').includes('..'), { error: 'an absolute path without ..' });
/** A command as an argument array; the first element is an absolute program path or a bare name. */
const argv = () => z.array(z.string().min(1).max(255).refine(isSafeText)).min(1).max(16);

export const agentSettingsSchema = z.object({
  controller: z.object({
    host: z.string().min(1).max(253).regex(/^[A-Za-z0-9.:-]+$/),
    port: z.number().int().min(1).max(65535).default(15002),
  }),
  /** The device's serial; unset: the MAC of the first wired interface (ap-agent-identity.ts). */
  serial: serialField().optional(),
  tls: z.object({ cert: absolutePath(), key: absolutePath(), ca: absolutePath() }),
  /** Radio N of the configuration document drives `radios[N]`. */
  radios: z
    .array(
      z.object({
        phy: z.string().regex(/^phy[0-9]{1,2}$/),
        interface: ifname(),
        /**
         * `wired`: hostapd's wired driver on an Ethernet port, an 802.1X authenticator with no
         * radio (no channel, power or scans); its one SSID must be 802.1X (`wpa2`).
         */
        driver: z.enum(['nl80211', 'wired']).default('nl80211'),
      }),
    )
    .min(1)
    .max(4),
  model: z.string().min(1).max(64).refine(isSafeText).default('portico-ap'),
  /** `cpe` for an outdoor bridge unit: the controller shows it as customer premises equipment. */
  platform: z.enum(['ap', 'cpe']).default('ap'),
  firmware: z
    .object({
      /** Reported in `connect`; unset: read from /etc/openwrt_version or /etc/debian_version. */
      version: z.string().min(1).max(128).refine(isSafeText).optional(),
      /**
       * Where the reported version comes from when `version` is unset: `system` (the
       * distribution's release file, an OpenWrt image) or `agent` (the agent's own version: a
       * Debian AP, whose firmware the controller upgrades is the agent, flashed by `flash`).
       */
      versionOf: z.enum(['system', 'agent']).default('system'),
      /** PEM Ed25519 public key every image must be signed with; unset: upgrades are refused. */
      publicKey: absolutePath().optional(),
      maxBytes: z.number().int().min(1024).max(512 * 1024 * 1024).default(64 * 1024 * 1024),
    })
    .default({ maxBytes: 64 * 1024 * 1024, versionOf: 'system' }),
  /** The applied configuration and downloaded images. */
  stateDir: absolutePath().default('/var/lib/portico-agent'),
  /** Rendered hostapd / wpa_supplicant files and their pid files. */
  runDir: absolutePath().default('/var/run/portico-agent'),
  hostapdControlDir: absolutePath().default('/var/run/hostapd'),
  supplicantControlDir: absolutePath().default('/var/run/wpa_supplicant'),
  /** The bridge each interface role's SSIDs join; none: the BSS is not bridged by hostapd. */
  bridges: z.object({ upstream: ifname().optional(), downstream: ifname().optional() }).default({}),
  /** The bridge of each VLAN id an interface may carry; a VLAN not listed is refused. */
  vlanBridges: z.record(z.string().regex(/^[0-9]{1,4}$/), ifname()).default({}),
  maxBssPerRadio: z.number().int().min(1).max(16).default(8),
  system: z
    .object({
      reboot: argv().default(['reboot']),
      /** Wipes the overlay; the agent reboots afterwards with `reboot`. */
      factoryReset: argv().default(['firstboot', '-y']),
      /** The verified image's path is appended. */
      upgrade: argv().default(['sysupgrade']),
      /** A /sys/class/leds entry `leds` blinks; unset: the unit reports it has no LED. */
      led: z.string().regex(/^[A-Za-z0-9_:.-]{1,64}$/).optional(),
    })
    .default({ reboot: ['reboot'], factoryReset: ['firstboot', '-y'], upgrade: ['sysupgrade'] }),
  /**
   * The Debian flash step (`portico-agent flash <settings.json> <image>`, ap-agent-flash.ts):
   * the installed agent program the image replaces, and the command that restarts its service.
   */
  flash: z
    .object({
      program: absolutePath().default('/usr/lib/portico-agent/portico-agent.mjs'),
      restart: argv().default(['systemctl', 'restart', '--no-block', 'portico-agent.service']),
    })
    .default({ program: '/usr/lib/portico-agent/portico-agent.mjs', restart: ['systemctl', 'restart', '--no-block', 'portico-agent.service'] }),
  reconnect: z
    .object({ minMs: z.number().int().min(100).max(60_000).default(1000), maxMs: z.number().int().min(1000).max(3_600_000).default(300_000) })
    .default({ minMs: 1000, maxMs: 300_000 }),
});
export type AgentSettings = z.infer<typeof agentSettingsSchema>;
export type AgentSettingsInput = z.input<typeof agentSettingsSchema>;

export class AgentSettingsError extends Error {}

/**
 * Settings the environment may give over the file (a unit's provisioning may know the
 * controller's address and where the certificate went): variable → path in the settings.
 */
export const AGENT_ENVIRONMENT = {
  PORTICO_AGENT_CONTROLLER_HOST: ['controller', 'host'],
  PORTICO_AGENT_CONTROLLER_PORT: ['controller', 'port'],
  PORTICO_AGENT_TLS_CERT: ['tls', 'cert'],
  PORTICO_AGENT_TLS_KEY: ['tls', 'key'],
  PORTICO_AGENT_TLS_CA: ['tls', 'ca'],
} as const;

function withEnvironment(value: unknown, env: Readonly<Record<string, string | undefined>>): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const merged = { ...(value as Record<string, unknown>) };
  for (const [name, [section, key]] of Object.entries(AGENT_ENVIRONMENT)) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const current = merged[section];
    const into = current && typeof current === 'object' && !Array.isArray(current) ? { ...(current as Record<string, unknown>) } : {};
    // A port that is not a number stays a string, so the schema names the field.
    into[key] = key === 'port' && /^[0-9]{1,5}$/.test(raw) ? Number(raw) : raw;
    merged[section] = into;
  }
  return merged;
}

/** Parses settings text, then the environment's overrides; the error lists every bad field by its path. */
export function parseAgentSettings(text: string, source: string, env: Readonly<Record<string, string | undefined>> = {}): AgentSettings {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AgentSettingsError(`${source}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  value = withEnvironment(value, env);
  const parsed = agentSettingsSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`);
    throw new AgentSettingsError(`${source}: ${problems.join('; ')}`);
  }
  return parsed.data;
}

export async function readAgentSettings(path = DEFAULT_SETTINGS_PATH, env: Readonly<Record<string, string | undefined>> = {}): Promise<AgentSettings> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new AgentSettingsError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return parseAgentSettings(text, path, env);
}
