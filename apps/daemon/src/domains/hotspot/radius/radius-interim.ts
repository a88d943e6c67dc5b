/**
 * When each accounted session's next Interim-Update is due: a min-heap by due time, so a tick
 * looks only at what is due instead of every session, and the steady rate (sessions over their
 * intervals, per second) kept as sessions come, go and change interval. A tick sends at most
 * that rate, the most overdue first: sessions that started together (a restart, a mass
 * sign-in) spread over one interval instead of coming due as one burst every interval.
 */

export interface InterimEntry {
  sid: string;
  /** The session's address: the engine's key, to find it when the update is due. */
  ip: string;
  due: number;
  intervalMs: number;
  /** Taken out (the session ended): dropped when it reaches the top. */
  removed: boolean;
}

export class InterimSchedule {
  private readonly heap: InterimEntry[] = [];
  private readonly bySid = new Map<string, InterimEntry>();
  /** Updates per second in the steady state. */
  private rate = 0;

  get size(): number {
    return this.bySid.size;
  }

  has(sid: string): boolean {
    return this.bySid.has(sid);
  }

  add(sid: string, ip: string, due: number, intervalMs: number): void {
    this.remove(sid);
    const entry: InterimEntry = { sid, ip, due, intervalMs, removed: false };
    this.bySid.set(sid, entry);
    this.rate += 1000 / intervalMs;
    this.push(entry);
  }

  remove(sid: string): void {
    const entry = this.bySid.get(sid);
    if (!entry) return;
    entry.removed = true;
    this.bySid.delete(sid);
    this.rate -= 1000 / entry.intervalMs;
  }

  /** Puts a taken entry back, due again; its interval may have changed. */
  again(entry: InterimEntry, due: number, intervalMs: number): void {
    if (entry.removed) return;
    this.rate += 1000 / intervalMs - 1000 / entry.intervalMs;
    entry.due = due;
    entry.intervalMs = intervalMs;
    this.push(entry);
  }

  /**
   * The entries due by `now`, most overdue first, at most one tick's share (`tickMs` of the
   * steady rate, and one more); each is out of the heap until `again` or `remove`.
   */
  takeDue(now: number, tickMs: number): InterimEntry[] {
    const budget = Math.ceil((this.rate * tickMs) / 1000) + 1;
    const out: InterimEntry[] = [];
    while (out.length < budget && this.heap.length && this.heap[0]!.due <= now) {
      const entry = this.pop();
      if (!entry.removed) out.push(entry);
    }
    return out;
  }

  private push(entry: InterimEntry): void {
    const heap = this.heap;
    let i = heap.push(entry) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.due <= entry.due) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): InterimEntry {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= heap.length) break;
        const right = left + 1;
        const child = right < heap.length && heap[right]!.due < heap[left]!.due ? right : left;
        if (heap[child]!.due >= last.due) break;
        heap[i] = heap[child]!;
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }
}
