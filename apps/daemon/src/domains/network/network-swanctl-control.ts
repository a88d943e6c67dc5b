import type { CommandRunner } from '../../engine/command-runner.js';
import type { IpsecLinks } from './network-dialled-links.js';

/** swanctl detaches after this many seconds of an initiation; charon goes on negotiating. */
const INITIATE_DETACH_S = 10;

/** The charon the clients live on: its vici socket URI. */
export interface IkeTarget {
  readonly uri: string;
}

/**
 * The IPsec clients' child SAs on the one charon (network-ike-daemon.ts), through swanctl. The
 * IKE daemon has already loaded the clients' connections (with every other IKE user's) when
 * this runs. When their files or the set of clients change: the SAs this daemon initiated are
 * terminated, and each client's child SA is initiated again on the new configuration. Dead peer
 * detection (`dpd_action = restart`) re-establishes a tunnel that drops later.
 *
 * The commands run in order on a queue of their own, so a slow peer never holds up an apply.
 */
export class SwanctlControl {
  private links: IpsecLinks | null = null;
  private initiated: string[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: { run: CommandRunner; ike: IkeTarget; report?: (error: unknown) => void }) {}

  configure(links: IpsecLinks | null, changed: ReadonlySet<string>): void {
    const previous = this.links;
    this.links = links;
    if (!links && !previous) return;
    const filesChanged = (links?.files ?? []).some((target) => changed.has(target));
    if (!filesChanged && JSON.stringify(previous) === JSON.stringify(links)) return;
    const children = links?.children ?? [];
    this.enqueue(() => this.reinitiate(children));
  }

  /** Waits for the commands under way; the SAs stay up until charon stops. */
  async stop(): Promise<void> {
    await this.queue;
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((error: unknown) => this.options.report?.(error));
  }

  private async reinitiate(children: readonly string[]): Promise<void> {
    const { run, report, ike } = this.options;
    // An SA that is already down answers "no matching SAs": expected, not reported.
    for (const name of this.initiated) await run(['swanctl', '--terminate', '--ike', name, '--force', '--uri', ike.uri]);
    this.initiated = [];
    for (const name of children) {
      this.initiated.push(name);
      const result = await run(['swanctl', '--initiate', '--child', name, '--timeout', String(INITIATE_DETACH_S), '--uri', ike.uri], {
        timeoutMs: (INITIATE_DETACH_S + 20) * 1000,
      });
      if (result.exitCode !== 0) report?.(new Error(`swanctl --initiate ${name}: ${(result.stderr || result.stdout).slice(0, 300)}`));
    }
  }
}
