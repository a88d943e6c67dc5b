import { rpcRequest, type UcentralLink } from '@portico/schema';

interface Frame {
  method?: string;
  params?: Record<string, unknown>;
  id?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** The controller's end of a link, scripted by a test: what the agent sent, and requests to it. */
export class ControllerEnd {
  readonly received: Frame[] = [];
  private readonly consumed = new Set<Frame>();
  private waiters: Array<() => void> = [];
  private nextId = 100;
  closed = false;

  constructor(readonly link: UcentralLink) {
    link.onMessage((text) => {
      this.received.push(JSON.parse(text) as Frame);
      this.wake();
    });
    link.onClose(() => {
      this.closed = true;
      this.wake();
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private async take(match: (f: Frame) => boolean): Promise<Frame> {
    for (;;) {
      const frame = this.received.find((f) => !this.consumed.has(f) && match(f));
      if (frame) {
        this.consumed.add(frame);
        return frame;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** The params of the next notification of that method (and matching `where`) not yet taken. */
  async next(method: string, where: (params: Record<string, unknown>) => boolean = () => true): Promise<Record<string, unknown>> {
    return (await this.take((f) => f.method === method && f.id === undefined && where(f.params ?? {}))).params ?? {};
  }

  notifications(method: string): Array<Record<string, unknown>> {
    return this.received.filter((f) => f.method === method).map((f) => f.params ?? {});
  }

  /** Sends a command and waits for its answer (result or error frame). */
  async call(method: string, params: Record<string, unknown>): Promise<Frame> {
    const id = this.nextId++;
    this.link.send(rpcRequest(id, method, params));
    return this.take((f) => f.id === id && f.method === undefined);
  }

  send(text: string): void {
    this.link.send(text);
  }
}
