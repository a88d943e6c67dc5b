import type { RenderedFile } from '../../engine/engine-types.js';
import type { CommandRunner } from '../../engine/command-runner.js';
import type { DialledLinks } from './network-dialled-links.js';
import { PppdSupervisor, type DiallerOptions } from './network-pppd-supervisor.js';
import { SwanctlControl } from './network-swanctl-control.js';
import { Xl2tpdSupervisor } from './network-xl2tpd-supervisor.js';

const NOTHING_DIALLED: DialledLinks = { pppd: [], l2tp: null, ipsec: null };

/**
 * The linux driver's dialler: pppd for PPPoE WANs and PPTP clients, xl2tpd for L2TP clients,
 * swanctl for IPsec clients. It learns what to dial from dialled-links.json when that file
 * changes, and acts after the apply pass, once the links pppd runs on exist and every file it
 * reads is installed; the files that changed in the pass decide what is restarted.
 */
export class LinkDialler {
  private links: DialledLinks = NOTHING_DIALLED;
  private readonly pppd: PppdSupervisor;
  private readonly xl2tpd: Xl2tpdSupervisor;
  private readonly swanctl: SwanctlControl;

  constructor(options: DiallerOptions & { run: CommandRunner }) {
    this.pppd = new PppdSupervisor(options);
    this.xl2tpd = new Xl2tpdSupervisor(options);
    this.swanctl = new SwanctlControl(options);
  }

  describe(links: DialledLinks): void {
    this.links = links;
  }

  async afterPass(live: readonly RenderedFile[]): Promise<void> {
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
}
