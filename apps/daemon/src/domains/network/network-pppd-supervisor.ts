import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SupervisedProcess, type RestartBackoff, type Scheduler } from './network-child-process.js';
import type { PppdLink } from './network-dialled-links.js';
import type { DialledService } from './network-leftover-processes.js';
import { readPppSecret } from './network-vpn-pppd.js';
import { pppHookOptions } from './network-wan-ppp.js';

/**
 * The pppd argument vector of a dialled link. `nodetach` keeps pppd in the foreground, where the
 * daemon supervises it (its own `persist` redials while it runs). The password reaches it on
 * file descriptor 3 through pppd's passwordfd plugin (shipped with Debian's ppp): never in the
 * argument vector, which any user can read in ps, nor in the environment. A PPPoE WAN's pppd
 * also runs the link hook (`hooks`, see pppHookOptions).
 */
export function pppdArgv(optionsPath: string, hooks: readonly string[] = []): string[] {
  return ['pppd', 'file', optionsPath, 'nodetach', 'plugin', 'passwordfd.so', 'passwordfd', '3', ...hooks];
}

/** The pppd argument vector the daemon runs for `link`. */
export function pppdArgvOf(root: string, link: PppdLink): string[] {
  return pppdArgv(join(root, link.options), link.wan ? pppHookOptions(root) : []);
}

export interface DiallerOptions {
  root: string;
  spawnPrefix?: readonly string[];
  /** Where pppd writes `ppp-<linkname>.pid` (its _PATH_VARRUN; /var/run is /run on Debian). */
  pppPidDir?: string;
  report?: (error: unknown) => void;
  scheduler?: Scheduler;
  backoff?: RestartBackoff;
}

/**
 * One supervised pppd per PPPoE WAN and per PPTP client. A link whose options or secret file
 * changed is restarted, one that is gone is stopped; the others keep their session. A pppd that
 * exits is started again after the restart backoff.
 */
export class PppdSupervisor {
  private readonly links = new Map<string, { link: PppdLink; pppd: SupervisedProcess }>();

  constructor(private readonly options: DiallerOptions) {}

  /** Brings the running pppd in line with `links`; `changed` holds the targets that changed. */
  async configure(links: readonly PppdLink[], changed: ReadonlySet<string>): Promise<void> {
    const wanted = new Map(links.map((link) => [link.name, link]));
    const stopping: Array<Promise<void>> = [];
    for (const [name, entry] of this.links) {
      const next = wanted.get(name);
      if (next && JSON.stringify(next) === JSON.stringify(entry.link)) continue;
      this.links.delete(name);
      stopping.push(entry.pppd.stop());
    }
    await Promise.all(stopping);
    const restarting: Array<Promise<void>> = [];
    for (const link of wanted.values()) {
      const entry = this.links.get(link.name);
      if (!entry) this.launch(link);
      else if (changed.has(link.options) || changed.has(link.secret)) restarting.push(entry.pppd.restart());
    }
    await Promise.all(restarting);
  }

  /** network/reconnect of a PPPoE WAN: its pppd starts over, a fresh discovery and session. */
  async reconnect(name: string): Promise<boolean | undefined> {
    const entry = this.links.get(name);
    if (!entry || entry.link.kind !== 'pppoe') return undefined;
    await entry.pppd.restart();
    return true;
  }

  /** The pppd the daemon runs for `links`, as an earlier run may have left them: `linkname` is the link's name. */
  services(links: readonly PppdLink[]): DialledService[] {
    const pidDir = this.options.pppPidDir ?? '/var/run';
    return links.map((link) => ({ pidFile: join(pidDir, `ppp-${link.name}.pid`), argv: pppdArgvOf(this.options.root, link) }));
  }

  async stop(): Promise<void> {
    const entries = [...this.links.values()];
    this.links.clear();
    await Promise.all(entries.map((entry) => entry.pppd.stop()));
  }

  private launch(link: PppdLink): void {
    const { root, spawnPrefix, report, scheduler, backoff } = this.options;
    const pppd = new SupervisedProcess({
      name: `pppd of ${link.name}`,
      argv: pppdArgvOf(root, link),
      spawnPrefix,
      report,
      scheduler,
      backoff,
      // Read at each start, so a restart after a password change sends the new one.
      fd3: () => {
        const password = readPppSecret(readFileSync(join(root, link.secret), 'utf8'));
        if (password === null) throw new Error(`${link.secret} holds no password`);
        return password;
      },
    });
    this.links.set(link.name, { link, pppd });
    pppd.start();
  }
}
