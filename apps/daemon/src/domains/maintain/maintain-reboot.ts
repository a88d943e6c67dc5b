import type { DriverName } from '../../settings.js';
import type { CommandRunner } from '../../engine/command-runner.js';
import type { Scheduler } from '../../config/config-types.js';

/** Commands that restart the device, as argument arrays (never a shell). */
export const REBOOT_COMMANDS: Readonly<Record<Exclude<DriverName, 'sim'>, readonly string[]>> = {
  linux: ['systemctl', 'reboot'],
  openwrt: ['reboot'],
};

/** Time the reply to a reboot request gets to leave before the device goes down. */
export const REBOOT_DELAY_MS = 1000;

/** Seconds a simulated restart keeps the daemon away. */
export const SIM_RESTART_SECONDS = 8;

/**
 * The state of a restart the daemon has started: while it is under way every API request is
 * answered 503, so no write lands on a device going down and the console's counter keeps
 * counting until the daemon answers again.
 */
export class RestartState {
  private startedAt: number | null = null;

  constructor(private readonly now: () => number) {}

  get active(): boolean {
    return this.startedAt !== null;
  }

  begin(): void {
    this.startedAt ??= this.now();
  }

  end(): void {
    this.startedAt = null;
  }

  /** Whole seconds since the restart began. */
  elapsedSeconds(): number {
    return this.startedAt === null ? 0 : Math.floor((this.now() - this.startedAt) / 1000);
  }
}

/** Restarts the device; resolves once the restart is under way (before the device is down). */
export interface Rebooter {
  /** Seconds the console should expect before the device answers again. */
  readonly expectedSeconds: number;
  reboot(): void;
}

export interface RebooterOptions {
  driver: DriverName;
  state: RestartState;
  run: CommandRunner;
  schedule: Scheduler;
  /** What a simulated restart does when it comes back: what a daemon start does (apply everything). */
  restartServices: () => Promise<void>;
  report: (error: unknown, what: string) => void;
  simSeconds?: number;
}

/**
 * The driver's restart. `sim` touches nothing on the host: the daemon stays away for a few
 * seconds and then applies the whole configuration as a start does. `linux` and `openwrt`
 * run the system's reboot command; the daemon comes back with the system.
 */
export function createRebooter(options: RebooterOptions): Rebooter {
  const { driver, state, run, schedule, report } = options;
  if (driver === 'sim') {
    const seconds = options.simSeconds ?? SIM_RESTART_SECONDS;
    return {
      expectedSeconds: seconds,
      reboot() {
        if (state.active) return;
        state.begin();
        schedule(seconds * 1000, () => {
          options
            .restartServices()
            .catch((error: unknown) => report(error, 'simulated restart: applying the configuration failed'))
            .finally(() => state.end());
        });
      },
    };
  }
  const argv = REBOOT_COMMANDS[driver];
  return {
    // A gateway takes about a minute to boot and start its services.
    expectedSeconds: 90,
    reboot() {
      if (state.active) return;
      state.begin();
      schedule(REBOOT_DELAY_MS, () => {
        run(argv)
          .then((result) => {
            if (result.exitCode !== 0) throw new Error(`${argv.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
          })
          .catch((error: unknown) => {
            // The device stays up: let the console see it answer again rather than wait forever.
            state.end();
            report(error, 'reboot failed');
          });
      });
    },
  };
}
