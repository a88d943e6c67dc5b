/**
 * Run-time signals between domains: one domain raises a typed signal (a security event was
 * recorded) and others follow it (e-mail notices) without importing each other's services.
 * The raiser declares the signal in its public face; a follower subscribes in `register`.
 * Extension points (domain-module.ts) carry configuration-time values; signals carry what
 * happens while the daemon runs.
 */
export interface Signal<T> {
  readonly id: string;
  /** Carries T for the type checker only. */
  readonly type?: (value: T) => void;
}

export function signal<T>(id: string): Signal<T> {
  return { id };
}

type Listener = (value: unknown) => void | Promise<void>;

export class SignalBus {
  private readonly listeners = new Map<string, Listener[]>();

  /** `report` hears a follower's failure; the raiser never does. */
  constructor(private readonly report: (error: unknown, signal: string) => void = () => undefined) {}

  /** Follows a signal; the answer stops following. */
  on<T>(point: Signal<T>, listener: (value: T) => void | Promise<void>): () => void {
    const list = this.listeners.get(point.id) ?? [];
    list.push(listener as Listener);
    this.listeners.set(point.id, list);
    return () => {
      const at = list.indexOf(listener as Listener);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /** Tells every follower, in subscription order; a follower that throws or rejects is reported, the others still hear. */
  emit<T>(point: Signal<T>, value: T): void {
    for (const listener of [...(this.listeners.get(point.id) ?? [])]) {
      try {
        const result = listener(value);
        if (result instanceof Promise) result.catch((error: unknown) => this.report(error, point.id));
      } catch (error) {
        this.report(error, point.id);
      }
    }
  }
}
