import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CommandFailure, runChecked, type CommandRunner } from './ap-agent-command.js';
import type { AgentSettings } from './ap-agent-settings.js';

/** How long the settings' upgrade command may run. */
const UPGRADE_TIMEOUT_MS = 10 * 60_000;

/** What the controller may ask of the unit itself. Each is a command from the settings. */
export interface SystemActions {
  reboot(): Promise<void>;
  factoryReset(keepRedirector: boolean): Promise<void>;
  /** Flashes a verified image; the unit reboots into it. */
  upgrade(imagePath: string): Promise<void>;
  /** Absent when the unit has no LED the agent may drive. */
  leds?: (pattern: 'on' | 'off' | 'blink', durationMs: number | undefined) => Promise<void>;
}

/** The LED through /sys/class/leds: `timer` blinks, `default-on` / `none` hold it. */
async function setLed(sysfs: string, led: string, pattern: 'on' | 'off' | 'blink'): Promise<void> {
  const trigger = { on: 'default-on', off: 'none', blink: 'timer' }[pattern];
  await writeFile(join(sysfs, led, 'trigger'), trigger);
}

export function commandSystemActions(
  run: CommandRunner,
  system: AgentSettings['system'],
  options: { ledSysfs?: string; schedule?: (fn: () => void, ms: number) => void } = {},
): SystemActions {
  const sysfs = options.ledSysfs ?? '/sys/class/leds';
  const schedule = options.schedule ?? ((fn, ms) => setTimeout(fn, ms).unref());
  const led = system.led;
  return {
    async reboot() {
      await runChecked(run, system.reboot);
    },
    async factoryReset() {
      // The redirector (the controller's address) is in the agent's settings, which a reset of
      // the overlay removes either way; keep_redirector cannot be honoured separately.
      await runChecked(run, system.factoryReset);
      await runChecked(run, system.reboot);
    },
    async upgrade(imagePath) {
      // A flash step checks and copies an image before it restarts anything: minutes, not the
      // runner's default half-minute.
      const argv = [...system.upgrade, imagePath];
      const output = await run(argv, { timeoutMs: UPGRADE_TIMEOUT_MS });
      if (output.exitCode !== 0) throw new CommandFailure(argv, output);
    },
    ...(led
      ? {
          async leds(pattern: 'on' | 'off' | 'blink', durationMs: number | undefined) {
            await setLed(sysfs, led, pattern);
            // A blink ends by itself; the LED goes back to its normal state (on).
            if (pattern === 'blink' && durationMs) schedule(() => void setLed(sysfs, led, 'on').catch(() => undefined), durationMs);
          },
        }
      : {}),
  };
}
