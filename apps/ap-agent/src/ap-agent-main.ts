import { join } from 'node:path';
import type { UcentralLink } from '@portico/schema';
import { execaRunner, type CommandRunner } from './ap-agent-command.js';
import { FileConfigStore } from './ap-agent-config-store.js';
import { readFirmwareKey } from './ap-agent-firmware.js';
import { HostapdRadioDriver, PidFileSupervisor } from './ap-agent-hostapd-driver.js';
import { firmwareVersion, wiredSerial } from './ap-agent-identity.js';
import { AgentSession } from './ap-agent-session.js';
import { AgentSettingsError, DEFAULT_SETTINGS_PATH, readAgentSettings, type AgentSettings } from './ap-agent-settings.js';
import { commandSystemActions } from './ap-agent-system.js';

/**
 * The agent's entry: settings, identity, the hostapd driver, the session. The transport (a TLS
 * WebSocket with the device certificate) is given as `dial`, which opens one link to the
 * controller each time it is called.
 */

export interface ControllerTarget {
  host: string;
  port: number;
  serial: string;
  tls: AgentSettings['tls'];
}

export type ControllerDialer = (target: ControllerTarget) => Promise<UcentralLink>;

export interface RunningAgent {
  session: AgentSession;
  stop(): void;
}

/** Builds and starts the agent; throws AgentSettingsError when the settings cannot be used. */
export async function startAgent(
  dial: ControllerDialer,
  options: { settingsPath?: string; run?: CommandRunner; env?: Readonly<Record<string, string | undefined>> } = {},
): Promise<RunningAgent> {
  const settings = await readAgentSettings(options.settingsPath ?? DEFAULT_SETTINGS_PATH, options.env);
  const serial = settings.serial ?? (await wiredSerial());
  if (!serial) throw new AgentSettingsError('no serial: set "serial" in the settings (no wired interface with a MAC was found)');
  let firmwareKey = null;
  if (settings.firmware.publicKey) {
    try {
      firmwareKey = await readFirmwareKey(settings.firmware.publicKey);
    } catch (error) {
      throw new AgentSettingsError(`firmware.publicKey: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const run = options.run ?? execaRunner;
  const driver = new HostapdRadioDriver({
    run,
    paths: { confDir: join(settings.runDir, 'conf'), hostapdControlDir: settings.hostapdControlDir, supplicantControlDir: settings.supplicantControlDir },
    supervisor: new PidFileSupervisor(run, join(settings.runDir, 'pid')),
    radios: settings.radios,
  });
  const target: ControllerTarget = { host: settings.controller.host, port: settings.controller.port, serial, tls: settings.tls };
  const session = new AgentSession({
    identity: { serial, firmware: await firmwareVersion(settings.firmware.version, undefined, settings.firmware.versionOf), model: settings.model, platform: settings.platform },
    settings,
    driver,
    store: new FileConfigStore(settings.stateDir),
    system: commandSystemActions(run, settings.system),
    connect: () => dial(target),
    firmwareKey,
    log: (severity, message) => process.stderr.write(`portico-agent: <${severity}> ${message}\n`),
  });
  await session.start();
  return { session, stop: () => session.stop() };
}

/** The command: runs until SIGTERM or SIGINT; exits 2 on unusable settings. */
export async function runAgentCli(dial: ControllerDialer, settingsPath = process.argv[2]): Promise<void> {
  let agent: RunningAgent;
  try {
    agent = await startAgent(dial, { ...(settingsPath ? { settingsPath } : {}), env: process.env });
  } catch (error) {
    process.stderr.write(`portico-agent: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof AgentSettingsError ? 2 : 1);
  }
  const stop = () => {
    agent.stop();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
