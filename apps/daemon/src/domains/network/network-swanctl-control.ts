import { join } from 'node:path';
import type { CommandRunner } from '../../engine/command-runner.js';
import type { IpsecLinks } from './network-dialled-links.js';

/** swanctl detaches after this many seconds of an initiation; charon goes on negotiating. */
const INITIATE_DETACH_S = 10;

/**
 * The IPsec clients on strongSwan's charon (a system service the daemon does not run), through
 * swanctl. When their files or the set of clients change: the SAs this daemon initiated are
 * terminated, the rendered swanctl.conf is loaded with `--load-all` (connections and keys not
 * in it are unloaded), and each client's child SA is initiated. With no client left the file is
 * gone; swanctl reads a missing file as an empty configuration, so loading it unloads them all.
 * Dead peer detection (`dpd_action = restart`) re-establishes a tunnel that drops later.
 *
 * The commands run in order on a queue of their own, so a slow peer never holds up an apply.
 */
export class SwanctlControl {
  private links: IpsecLinks | null = null;
  private initiated: string[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: { root: string; run: CommandRunner; report?: (error: unknown) => void }) {}

  configure(links: IpsecLinks | null, changed: ReadonlySet<string>): void {
    const previous = this.links;
    this.links = links;
    const config = links?.config ?? previous?.config;
    if (!config) return;
    const filesChanged = (links?.files ?? []).some((target) => changed.has(target));
    if (!filesChanged && JSON.stringify(previous) === JSON.stringify(links)) return;
    const children = links?.children ?? [];
    this.enqueue(() => this.reload(join(this.options.root, config), children));
  }

  /** Waits for the commands under way; the SAs stay up (charon holds them). */
  async stop(): Promise<void> {
    await this.queue;
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((error: unknown) => this.options.report?.(error));
  }

  private async reload(config: string, children: readonly string[]): Promise<void> {
    const { run, report } = this.options;
    // An SA that is already down answers "no matching SAs": expected, not reported.
    for (const name of this.initiated) await run(['swanctl', '--terminate', '--ike', name, '--force']);
    this.initiated = [];
    const load = await run(['swanctl', '--load-all', '--noprompt', '--file', config]);
    if (load.exitCode !== 0) {
      report?.(new Error(`swanctl --load-all: ${load.stderr.slice(0, 300)}`));
      return;
    }
    for (const name of children) {
      this.initiated.push(name);
      const result = await run(['swanctl', '--initiate', '--child', name, '--timeout', String(INITIATE_DETACH_S)], {
        timeoutMs: (INITIATE_DETACH_S + 20) * 1000,
      });
      if (result.exitCode !== 0) report?.(new Error(`swanctl --initiate ${name}: ${(result.stderr || result.stdout).slice(0, 300)}`));
    }
  }
}
