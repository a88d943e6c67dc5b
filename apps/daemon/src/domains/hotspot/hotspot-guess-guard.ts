/**
 * Voucher and password guessing limit: a client that fails `maxFailures` times within the
 * window is refused for `lockMs`, counted per MAC and per IP, so changing either alone does
 * not reset it. Success clears nothing: a guesser who finds one code is still counted.
 */
const SWEEP_FLOOR = 50_000;

export class GuessGuard {
  private readonly failures = new Map<string, number[]>();
  private readonly lockedUntil = new Map<string, number>();
  /** Size at which the maps are next swept; doubles with what survives a sweep (amortised O(1)). */
  private sweepAt = SWEEP_FLOOR;

  constructor(
    private readonly now: () => number,
    private readonly maxFailures = 5,
    private readonly windowMs = 5 * 60_000,
    private readonly lockMs = 5 * 60_000,
  ) {}

  private keys(client: { mac: string; ip: string }): string[] {
    return [`mac:${client.mac}`, `ip:${client.ip}`];
  }

  locked(client: { mac: string; ip: string }): boolean {
    const now = this.now();
    return this.keys(client).some((key) => (this.lockedUntil.get(key) ?? 0) > now);
  }

  fail(client: { mac: string; ip: string }): void {
    const now = this.now();
    for (const key of this.keys(client)) {
      const recent = (this.failures.get(key) ?? []).filter((t) => now - t < this.windowMs);
      recent.push(now);
      if (recent.length >= this.maxFailures) {
        this.lockedUntil.set(key, now + this.lockMs);
        this.failures.delete(key);
      } else {
        this.failures.set(key, recent);
      }
    }
    // Keep the maps bounded under a flood of distinct sources, without a full scan per failure.
    if (this.failures.size + this.lockedUntil.size > this.sweepAt) {
      this.prune(now);
      this.sweepAt = Math.max(SWEEP_FLOOR, 2 * (this.failures.size + this.lockedUntil.size));
    }
  }

  private prune(now: number): void {
    for (const [key, times] of this.failures) if (times.every((t) => now - t >= this.windowMs)) this.failures.delete(key);
    for (const [key, until] of this.lockedUntil) if (until <= now) this.lockedUntil.delete(key);
  }
}
