import { linkPair } from '@portico/schema';
import { FileConfigStore } from '../src/ap-agent-config-store.js';
import type { RadioDriver } from '../src/ap-agent-radio-driver.js';
import { AgentSession, type SessionOptions } from '../src/ap-agent-session.js';
import type { AgentSettings } from '../src/ap-agent-settings.js';
import type { SystemActions } from '../src/ap-agent-system.js';
import { agentSettings, SERIAL } from './agent-fixtures.js';
import { ControllerEnd } from './controller-end.js';
import { FakeClock } from './fake-clock.js';

export interface RecordedSystem extends SystemActions {
  calls: Array<[string, ...unknown[]]>;
}

export function recordedSystem(withLeds = true): RecordedSystem {
  const calls: Array<[string, ...unknown[]]> = [];
  return {
    calls,
    reboot: async () => void calls.push(['reboot']),
    factoryReset: async (keep) => void calls.push(['factory', keep]),
    upgrade: async (path) => void calls.push(['upgrade', path]),
    ...(withLeds ? { leds: async (pattern: string, duration: number | undefined) => void calls.push(['leds', pattern, duration]) } : {}),
  };
}

export interface AgentUnderTest {
  session: AgentSession;
  clock: FakeClock;
  settings: AgentSettings;
  system: RecordedSystem;
  /** One controller end per link the agent opened, newest last. */
  ends: ControllerEnd[];
  /** The controller end of the newest link, once the agent has dialled. */
  controller(): Promise<ControllerEnd>;
}

/** An agent on in-memory links to a scripted controller, with a fake clock. */
export async function startAgent(driver: RadioDriver, options: Partial<SessionOptions> & { clock?: FakeClock; settings?: AgentSettings } = {}): Promise<AgentUnderTest> {
  const clock = options.clock ?? new FakeClock();
  const settings = options.settings ?? agentSettings();
  const system = recordedSystem();
  const ends: ControllerEnd[] = [];
  let dialled: () => void = () => undefined;
  const session = new AgentSession({
    identity: { serial: SERIAL, firmware: 'OpenWrt 23.05.5', model: 'portico-ap', platform: 'ap' },
    settings,
    driver,
    store: new FileConfigStore(settings.stateDir),
    system,
    firmwareKey: null,
    clock,
    random: () => 1,
    unit: () => ({ load: [0.1, 0.2, 0.3], uptime: 100 }),
    connect: async () => {
      const pair = linkPair(SERIAL);
      ends.push(new ControllerEnd(pair.controller));
      dialled();
      return pair.device;
    },
    ...options,
  });
  await session.start();
  return {
    session,
    clock,
    settings,
    system,
    ends,
    async controller() {
      while (ends.length === 0) await new Promise<void>((resolve) => (dialled = resolve));
      return ends.at(-1)!;
    },
  };
}
