import type { RenderedFile } from '../../engine/engine-types.js';
import type { CommandRunner } from '../../engine/command-runner.js';
import { NETWORK_FILES } from './network-config.js';
import type { DialledLinks } from './network-dialled-links.js';
import { stopLeftover } from './network-leftover-processes.js';
import { PppdSupervisor, type DiallerOptions } from './network-pppd-supervisor.js';
import { SwanctlControl, type IkeTarget } from './network-swanctl-control.js';
import { Xl2tpdSupervisor } from './network-xl2tpd-supervisor.js';

const NOTHING_DIALLED: DialledLinks = { pppd: [], l2tp: null, ipsec: null };

/**
 * The linux driver's dialler: pppd for PPPoE WANs and PPTP clients, xl2tpd for L2TP clients,
 * swanctl for IPsec clients (their child SAs on the one charon, network-ike-daemon.ts). It learns what to dial from dialled-links.json when that file
 * changes, and acts after the apply pass, once the links pppd runs on exist and every file it
 * reads is installed; the files that changed in the pass decide what is restarted.
 */
export class LinkDialler {
  private links: DialledLinks = NOTHING_DIALLED;
  private leftoversStopped = false;
  private readonly pppd: PppdSupervisor;
  private readonly xl2tpd: Xl2tpdSupervisor;
  private readonly swanctl: SwanctlControl;

  constructor(private readonly options: DiallerOptions & { run: CommandRunner; ike: IkeTarget }) {
    this.pppd = new PppdSupervisor(options);
    this.xl2tpd = new Xl2tpdSupervisor(options);
    this.swanctl = new SwanctlControl(options);
  }

  describe(links: DialledLinks): void {
    this.links = links;
  }

  async afterPass(live: readonly RenderedFile[]): Promise<void> {
    if (!this.leftoversStopped) {
      this.leftoversStopped = true;
      await this.stopLeftovers();
    }
    const changed = new Set(live.map((file) => file.target));
    this.swanctl.configure(this.links.ipsec, changed);
    await Promise.all([this.pppd.configure(this.links.pppd, changed), this.xl2tpd.configure(this.links.l2tp, changed)]);
  }

  reconnect(wan: string): Promise<boolean | undefined> {
    return this.pppd.reconnect(wan);
  }

  async stop(): Promise<void> {
    await Promise.all([this.pppd.stop(), this.xl2tpd.stop(), this.swanctl.stop()]);
  }

  /**
   * Before the first dial: the pppd and xl2tpd an earlier run of the daemon started and never
   * stopped (it was killed) are stopped, so no link is dialled twice.
   */
  private async stopLeftovers(): Promise<void> {
    const { spawnPrefix, report } = this.options;
    const services = [...this.pppd.services(this.links.pppd), this.xl2tpd.service(this.links.l2tp?.config ?? NETWORK_FILES.xl2tpd)];
    await Promise.all(
      services.map(async (service) => {
        try {
          const pid = await stopLeftover(service, { spawnPrefix });
          if (pid !== null) report?.(new Error(`${service.argv[0]} (pid ${pid}) left running by an earlier run of the daemon was stopped`));
        } catch (error) {
          report?.(error);
        }
      }),
    );
  }
}
