/**
 * Runs applies one at a time. Requests that arrive while one runs are merged into the next
 * run (the union of their domains, rendered from the configuration as it is then), so a
 * burst of writes costs one apply, not one each. Every caller learns the outcome of the run
 * that covered its request; `run` also gets what each request carried (how to undo it).
 */
export class ApplyQueue<P> {
  private readonly domains = new Set<string>();
  private payloads: P[] = [];
  private waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private running: Promise<void> | null = null;

  constructor(private readonly run: (domains: string[], payloads: P[]) => Promise<void>) {}

  request(domains: readonly string[], payload?: P): Promise<void> {
    for (const domain of domains) this.domains.add(domain);
    if (payload !== undefined) this.payloads.push(payload);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.running ??= this.drain();
    return done;
  }

  /** Resolves once nothing is queued or running. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiters.length > 0) {
        const domains = [...this.domains];
        this.domains.clear();
        const payloads = this.payloads;
        this.payloads = [];
        const waiters = this.waiters;
        this.waiters = [];
        try {
          await this.run(domains, payloads);
          for (const w of waiters) w.resolve();
        } catch (error) {
          for (const w of waiters) w.reject(error);
        }
      }
    } finally {
      this.running = null;
    }
  }
}
