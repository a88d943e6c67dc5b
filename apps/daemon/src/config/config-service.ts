import type { AnyEntity, ApiFailure, RevisionSummary } from '@portico/schema';
import type { Db } from '../plugins/db-open.js';
import { failure } from '../plugins/api-envelope.js';
import type { JournalOnlyEntity } from './account-access.js';
import { changedEntities, diffSnapshots, summarise, toJournalChange } from './config-diff.js';
import type { DomainRegistry } from './config-domains.js';
import { RevisionJournal } from './config-journal.js';
import {
  realScheduler,
  type Actor,
  type ConfigApplier,
  type ConfigSnapshot,
  type ConfirmTicket,
  type RawChange,
  type Scheduler,
} from './config-types.js';
import { ApplyQueue } from './apply-queue.js';
import { hashConfirmToken, newConfirmToken, PendingStore, tokenMatches, type PendingApply } from './apply-pending.js';

/** Messages of the apply pipeline. */
export const APPLY_MSG = {
  applyFailed: 'msg.applyFailed',
  confirmPending: 'msg.confirmPending',
  confirmInvalid: 'msg.confirmInvalid',
} as const;

/** A write or revert committed to the database, waiting for its apply. */
interface Committed {
  revision: number;
  ticket?: ConfirmTicket;
  rollback: Rollback;
  domains: string[];
}

/** The actor of changes the daemon makes by itself. */
export const SYSTEM_ACTOR: Actor = { user: 'system', sourceIp: '' };

export const NOT_CONFIRMED: RevisionSummary = { key: 'notConfirmed' };

export interface ConfigServiceOptions {
  db: Db;
  now: () => number;
  applier: ConfigApplier;
  domains: DomainRegistry;
  /** Length of the confirmation window of changes that can cut the administrator off. */
  confirmSeconds: number;
  schedule?: Scheduler;
  /** Entities stored outside config_rows, by name. */
  journalOnly?: Readonly<Record<string, JournalOnlyEntity>>;
  /** Problems nobody waits for (a revert that could not be applied). */
  report?: (error: unknown, what: string) => void;
}

/** One configuration write as the entity routes describe it. */
export interface EntityWrite<T> {
  entity: AnyEntity;
  actor: Actor;
  /** The entity's store is not config_rows (a domain's own table): journalled, never in a snapshot. */
  journalOnly?: boolean;
  /** Writes the rows. For config_rows entities it runs inside the journal's transaction and must be synchronous. */
  mutate: () => T | Promise<T>;
  /** What the write did, with unredacted rows; the journal redacts. */
  describe: (result: T) => RawChange[];
  /**
   * What the write is about to do, when known before writing: lets a journal-only entity be
   * refused while another confirmation is pending, before anything is written.
   */
  intent?: RawChange[];
}

export type WriteOutcome<T> =
  | { ok: true; result: T; revision: number | null; confirm?: ConfirmTicket }
  | { ok: false; reply: ApiFailure };

export interface PendingStatus {
  pending: boolean;
  revision?: number;
  user?: string;
  summary?: RevisionSummary;
  deadline?: number;
  seconds?: number;
  secondsLeft?: number;
}

/** What puts the previous configuration back if the apply of a write fails. */
interface Rollback {
  revision: number;
  before: ConfigSnapshot;
  entities: string[];
  pendingRevision?: number;
}

/** A store outside config_rows with no access rule of its own: nothing to confirm or undo. */
const NEVER_CUTS: JournalOnlyEntity = { cutsCaller: () => false, undo: () => undefined };

class Refused extends Error {
  constructor(readonly reply: ApiFailure) {
    super(reply.msg);
  }
}

function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

/** The first line of an error, short: it goes into a summary every reader of the journal sees. */
function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * The one path every configuration write takes (DESIGN §4): rows and revision in one
 * transaction, then the affected domains applied through the applier, one apply at a time.
 * A failed apply puts the previous rows back as a new revision and re-applies them. A change
 * that can cut the administrator off is applied with a confirmation deadline: the pending
 * state is written in the same transaction, so it is on disk before the apply, and a restart
 * inside the window still reverts.
 */
export class ConfigService {
  readonly journal: RevisionJournal;
  readonly pending: PendingStore;
  private readonly queue: ApplyQueue<Rollback>;
  private readonly entities = new Map<string, AnyEntity>();
  private readonly schedule: Scheduler;
  private cancelTimer: (() => void) | undefined;
  private stopped = false;
  private readonly appliedListeners: Array<(domains: readonly string[]) => void | Promise<void>> = [];

  constructor(private readonly options: ConfigServiceOptions) {
    this.journal = new RevisionJournal(options.db, options.now);
    this.pending = new PendingStore(options.db);
    this.schedule = options.schedule ?? realScheduler;
    this.queue = new ApplyQueue<Rollback>((domains, rollbacks) => this.runApply(domains, rollbacks));
  }

  get confirmSeconds(): number {
    return this.options.confirmSeconds;
  }

  /** Makes an entity's declaration known: its secrets are redacted and its cutsAccess honoured. */
  declare(entity: AnyEntity): void {
    this.entities.set(entity.name, entity);
  }

  readonly lookup = (name: string): AnyEntity | undefined => this.entities.get(name);

  private cutsAccess(entity: string): boolean {
    return this.entities.get(entity)?.cutsAccess === true;
  }

  /** Records, applies and, when the entity can cut the administrator off, arms the confirmation. */
  async write<T>(w: EntityWrite<T>): Promise<WriteOutcome<T>> {
    const guard = this.options.journalOnly?.[w.entity.name] ?? (w.journalOnly ? NEVER_CUTS : undefined);
    return guard ? this.writeJournalOnly(w, guard) : this.writeRows(w);
  }

  private async writeRows<T>(w: EntityWrite<T>): Promise<WriteOutcome<T>> {
    const cuts = w.entity.cutsAccess === true;
    let result!: T;
    let committed: Committed;
    try {
      committed = this.options.db.transaction(() => {
        if (cuts && this.pending.read()) throw new Refused(failure(APPLY_MSG.confirmPending));
        const before = this.journal.capture();
        const head = this.ensureHead(before);
        const value = w.mutate();
        if (isThenable(value)) throw new Error(`the store of ${w.entity.name} must write config rows synchronously`);
        result = value;
        const raw = w.describe(value);
        const entities = unique([w.entity.name, ...raw.map((c) => c.entity)]);
        const revision = this.journal.append(w.actor, { key: 'changes', groups: summarise(raw) }, raw.map((c) => toJournalChange(this.lookup, c)), this.journal.capture());
        return this.committed(revision, before, entities, cuts ? this.arm(head, revision) : undefined);
      })();
    } catch (error) {
      if (error instanceof Refused) return { ok: false, reply: error.reply };
      throw error;
    }
    return this.applyCommitted(committed, result);
  }

  /**
   * Stores outside config_rows write on their own (accounts hash passwords first), so the
   * revision follows in its own transaction. Nothing is rendered from them.
   */
  private async writeJournalOnly<T>(w: EntityWrite<T>, guard: JournalOnlyEntity): Promise<WriteOutcome<T>> {
    if (w.intent?.some((c) => guard.cutsCaller(c, w.actor)) && this.pending.read()) {
      return { ok: false, reply: failure(APPLY_MSG.confirmPending) };
    }
    const result = await w.mutate();
    const raw = w.describe(result);
    const cuts = raw.some((c) => guard.cutsCaller(c, w.actor));
    const committed = this.options.db.transaction(() => {
      const snapshot = this.journal.capture();
      const head = this.ensureHead(snapshot);
      const changes = raw.map((c) => toJournalChange(this.lookup, c));
      // Changes no snapshot holds (admin accounts): the summary says a revert leaves them.
      const revision = this.journal.append(w.actor, { key: 'changes', groups: summarise(raw), journalOnly: true }, changes, snapshot);
      // Another confirmation armed while this one was being written: it is kept, unconfirmed.
      const ticket = cuts && !this.pending.read() ? this.arm(head, revision) : undefined;
      return { revision, ticket };
    })();
    if (committed.ticket) this.armTimer();
    return { ok: true, result, revision: committed.revision, ...(committed.ticket ? { confirm: committed.ticket } : {}) };
  }

  /** What a committed write or revert hands to its apply: the rows are in, the system not yet. */
  private committed(revision: number, before: ConfigSnapshot, entities: string[], ticket: ConfirmTicket | undefined): Committed {
    return {
      revision,
      ticket,
      domains: this.options.domains.domainsOf(entities),
      rollback: { revision, before, entities, ...(ticket ? { pendingRevision: revision } : {}) },
    };
  }

  /** Starts the confirmation timer if one was armed, applies, and answers the write. */
  private async applyCommitted<T>(committed: Committed, result: T): Promise<WriteOutcome<T>> {
    if (committed.ticket) this.armTimer();
    if (!(await this.applied(committed.domains, committed.rollback))) return { ok: false, reply: failure(APPLY_MSG.applyFailed) };
    return { ok: true, result, revision: committed.revision, ...(committed.ticket ? { confirm: committed.ticket } : {}) };
  }

  /** Restores the snapshot of a revision as a new revision, applied like any write. */
  async revertTo(id: number, actor: Actor): Promise<WriteOutcome<{ revision: number | null }>> {
    const target = this.journal.snapshot(id);
    if (!target) return { ok: false, reply: failure('msg.notFound') };
    let committed: Committed | null;
    try {
      committed = this.options.db.transaction(() => {
        const before = this.journal.capture();
        const entities = changedEntities(before, target);
        if (entities.length === 0) return null;
        const cuts = entities.some((e) => this.cutsAccess(e));
        if (cuts && this.pending.read()) throw new Refused(failure(APPLY_MSG.confirmPending));
        const head = this.ensureHead(before);
        this.journal.restore(target, entities);
        const after = this.journal.capture();
        const changes = diffSnapshots(before, after).map((c) => toJournalChange(this.lookup, c));
        const revision = this.journal.append(actor, { key: 'revertTo', revision: id }, changes, after);
        return this.committed(revision, before, entities, cuts ? this.arm(head, revision) : undefined);
      })();
    } catch (error) {
      if (error instanceof Refused) return { ok: false, reply: error.reply };
      throw error;
    }
    if (!committed) return { ok: true, result: { revision: null }, revision: null };
    return this.applyCommitted(committed, { revision: committed.revision });
  }

  /**
   * Makes `target` the whole configuration as one new revision without applying it: a
   * restored backup or the factory defaults take effect at the next start, which applies
   * everything. Refused while a change waits for its confirmation, whose revert would undo
   * part of it. `revision` is null when the configuration already was `target`.
   */
  replaceForRestart(target: ConfigSnapshot, actor: Actor, summary: RevisionSummary): { ok: true; revision: number | null } | { ok: false; reply: ApiFailure } {
    try {
      return this.options.db.transaction(() => {
        if (this.pending.read()) throw new Refused(failure(APPLY_MSG.confirmPending));
        const before = this.journal.capture();
        this.ensureHead(before);
        const entities = changedEntities(before, target);
        if (entities.length === 0) return { ok: true as const, revision: null };
        this.journal.restore(target, entities);
        const after = this.journal.capture();
        const changes = diffSnapshots(before, after).map((c) => toJournalChange(this.lookup, c));
        return { ok: true as const, revision: this.journal.append(actor, summary, changes, after) };
      })();
    } catch (error) {
      if (error instanceof Refused) return { ok: false, reply: error.reply };
      throw error;
    }
  }

  /** Keeps the pending change: the token is spent. */
  async confirm(token: string): Promise<{ ok: true; revision: number } | { ok: false; reply: ApiFailure }> {
    const pending = this.pending.read();
    if (!pending || !tokenMatches(token, pending.tokenHash)) return { ok: false, reply: failure(APPLY_MSG.confirmInvalid) };
    if (this.options.now() >= pending.deadline) {
      await this.revertPending(NOT_CONFIRMED, SYSTEM_ACTOR, pending.revisionAfter);
      return { ok: false, reply: failure(APPLY_MSG.confirmInvalid) };
    }
    if (!this.pending.clear(pending.revisionAfter)) return { ok: false, reply: failure(APPLY_MSG.confirmInvalid) };
    this.disarmTimer();
    return { ok: true, revision: pending.revisionAfter };
  }

  /** Puts the previous configuration back at once, on the holder of the token's word. */
  async refuse(token: string, sourceIp: string): Promise<{ ok: true; revision: number | null } | { ok: false; reply: ApiFailure }> {
    const pending = this.pending.read();
    if (!pending || !tokenMatches(token, pending.tokenHash)) return { ok: false, reply: failure(APPLY_MSG.confirmInvalid) };
    const user = this.journal.get(pending.revisionAfter)?.user ?? SYSTEM_ACTOR.user;
    const outcome = await this.revertPending({ key: 'refused', revision: pending.revisionAfter }, { user, sourceIp }, pending.revisionAfter);
    if (!outcome.reverted) return { ok: false, reply: failure(APPLY_MSG.confirmInvalid) };
    return outcome.applied ? { ok: true, revision: outcome.revision } : { ok: false, reply: failure(APPLY_MSG.applyFailed) };
  }

  /** What the console shows while a change waits for its confirmation; never the token. */
  status(): PendingStatus {
    const pending = this.pending.read();
    if (!pending) return { pending: false };
    const revision = this.journal.get(pending.revisionAfter);
    return {
      pending: true,
      revision: pending.revisionAfter,
      user: revision?.user ?? '',
      ...(revision ? { summary: revision.summary } : {}),
      deadline: pending.deadline,
      seconds: Math.round((pending.deadline - pending.createdAt) / 1000),
      secondsLeft: Math.max(0, Math.ceil((pending.deadline - this.options.now()) / 1000)),
    };
  }

  /**
   * At start: records the configuration found if the journal does not hold it yet, then
   * honours a pending confirmation left by the previous run (reverts now if its deadline is
   * past, else waits for the rest of the window).
   */
  async resume(): Promise<void> {
    this.options.db.transaction(() => this.ensureHead(this.journal.capture()))();
    const pending = this.pending.read();
    if (pending && this.options.now() >= pending.deadline) {
      await this.revertPending(NOT_CONFIRMED, SYSTEM_ACTOR, pending.revisionAfter).catch((error: unknown) =>
        this.report(error, 'reverting an unconfirmed change failed'),
      );
    } else if (pending) {
      this.armTimer();
    }
    await this.applyAtStart();
  }

  /**
   * Puts the whole configuration on the system at start: after a reboot none of it is there,
   * and after a restart no service is supervised. A failure is reported, not fatal: the
   * console must stay reachable to fix it.
   */
  private async applyAtStart(): Promise<void> {
    const domains = this.options.domains.renderable();
    if (domains.length === 0) return;
    try {
      await this.options.applier.apply(domains, this.journal.capture(), { full: true });
    } catch (error) {
      this.report(error, 'applying the configuration at start failed');
    }
  }

  /**
   * Reconnects a DHCP or PPPoE WAN through the driver. The `sim` driver runs no client, so
   * there is nothing to restart and the call succeeds.
   */
  reconnect(wan: string): Promise<boolean> {
    return this.options.applier.reconnect ? this.options.applier.reconnect(wan) : Promise.resolve(true);
  }

  /**
   * Calls `listener` after each apply (done, or failed and rolled back) with its config
   * domains, before the write that asked for it is answered: a runtime service that follows
   * saved settings (a listening port, a supervised program) is in step when the save returns.
   */
  onApplied(listener: (domains: readonly string[]) => void | Promise<void>): () => void {
    this.appliedListeners.push(listener);
    return () => {
      const at = this.appliedListeners.indexOf(listener);
      if (at >= 0) this.appliedListeners.splice(at, 1);
    };
  }

  private async notifyApplied(domains: readonly string[]): Promise<void> {
    for (const listener of [...this.appliedListeners]) {
      try {
        await listener(domains);
      } catch (error) {
        this.report(error, 'a service could not follow the applied configuration');
      }
    }
  }

  /** Stops the timer and waits for the apply in progress. A pending change stays on disk. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.disarmTimer();
    await this.queue.idle();
    await this.options.applier.stop?.();
  }

  /**
   * Restores what the pending change altered to its state at `revision_before`, as a new
   * revision, clears the pending row and applies. Does nothing if the pending change is no
   * longer `expected` (confirmed or reverted meanwhile).
   */
  private async revertPending(
    summary: RevisionSummary,
    actor: Actor,
    expected: number,
  ): Promise<{ reverted: false } | { reverted: true; revision: number | null; applied: boolean }> {
    const done = this.options.db.transaction(() => {
      const pending = this.pending.read();
      if (!pending || pending.revisionAfter !== expected) return null;
      this.pending.clear(expected);
      const changed = this.journal.get(pending.revisionAfter)?.changes ?? [];
      const target = this.journal.snapshot(pending.revisionBefore);
      const guards = this.options.journalOnly ?? {};
      const undone: RawChange[] = [];
      for (const change of changed) {
        const made = guards[change.entity]?.undo(change);
        if (made) undone.push(made);
      }
      const entities = unique(changed.map((c) => c.entity).filter((e) => !guards[e]));
      const before = this.journal.capture();
      if (target) this.journal.restore(target, entities);
      else this.report(new Error(`revision ${pending.revisionBefore} is missing`), 'cannot restore the configuration of an unconfirmed change');
      const after = this.journal.capture();
      const raw = [...diffSnapshots(before, after), ...undone];
      const revision = this.journal.append(actor, summary, raw.map((c) => toJournalChange(this.lookup, c)), after);
      return { revision, domains: this.options.domains.domainsOf(entities) };
    })();
    if (!done) return { reverted: false };
    this.disarmTimer();
    try {
      await this.queue.request(done.domains);
      return { reverted: true, revision: done.revision, applied: true };
    } catch (error) {
      this.report(error, 'applying the previous configuration failed');
      return { reverted: true, revision: done.revision, applied: false };
    }
  }

  /** Inside a transaction: the pending row of a change that waits for its confirmation. */
  private arm(revisionBefore: number, revisionAfter: number): ConfirmTicket {
    const token = newConfirmToken();
    const createdAt = this.options.now();
    const deadline = createdAt + this.options.confirmSeconds * 1000;
    this.pending.insert({ revisionBefore, revisionAfter, tokenHash: hashConfirmToken(token), deadline, createdAt });
    return { token, deadline, seconds: this.options.confirmSeconds };
  }

  /** Schedules the revert of the pending change for the rest of its window. */
  private armTimer(): void {
    this.disarmTimer();
    const pending: PendingApply | undefined = this.pending.read();
    if (!pending || this.stopped) return;
    const expected = pending.revisionAfter;
    this.cancelTimer = this.schedule(Math.max(0, pending.deadline - this.options.now()), () => {
      this.cancelTimer = undefined;
      this.revertPending(NOT_CONFIRMED, SYSTEM_ACTOR, expected).catch((error: unknown) => this.report(error, 'reverting an unconfirmed change failed'));
    });
  }

  private disarmTimer(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  /**
   * Inside a transaction: the id of a revision whose snapshot is the current configuration,
   * recording one first if the journal is empty or rows were changed outside it.
   */
  private ensureHead(current: ConfigSnapshot): number {
    const latest = this.options.db.prepare('SELECT id, snapshot FROM revisions ORDER BY id DESC LIMIT 1').get() as
      | { id: number; snapshot: string }
      | undefined;
    if (latest && latest.snapshot === JSON.stringify(current)) return latest.id;
    const raw = latest ? diffSnapshots(JSON.parse(latest.snapshot) as ConfigSnapshot, current) : [];
    const summary: RevisionSummary = latest ? { key: 'outsideJournal', groups: summarise(raw) } : { key: 'atStart' };
    return this.journal.append(SYSTEM_ACTOR, summary, raw.map((c) => toJournalChange(this.lookup, c)), current);
  }

  /** Waits for the apply that covers the write; false when it failed (and was rolled back). */
  private async applied(domains: readonly string[], rollback: Rollback): Promise<boolean> {
    if (domains.length === 0) return true;
    try {
      await this.queue.request(domains, rollback);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * One apply of the queue. If it fails, every write it covered is undone together: their
   * entities go back to the rows before the earliest of them, as one revision, and the
   * previous configuration is applied again.
   */
  private async runApply(domains: string[], rollbacks: Rollback[]): Promise<void> {
    if (domains.length === 0) return;
    try {
      await this.options.applier.apply(domains, this.journal.capture());
    } catch (error) {
      this.report(error, 'applying the configuration failed');
      if (rollbacks.length === 0) throw error;
      this.rollBack(rollbacks, error);
      try {
        await this.options.applier.apply(domains, this.journal.capture());
      } catch (again) {
        this.report(again, 'applying the previous configuration again failed');
      }
      await this.notifyApplied(domains);
      throw error;
    }
    await this.notifyApplied(domains);
  }

  private rollBack(rollbacks: Rollback[], error: unknown): void {
    const earliest = rollbacks.reduce((a, b) => (b.revision < a.revision ? b : a));
    const entities = unique(rollbacks.flatMap((r) => r.entities));
    let disarm = false;
    this.options.db.transaction(() => {
      const before = this.journal.capture();
      this.journal.restore(earliest.before, entities);
      const after = this.journal.capture();
      const changes = diffSnapshots(before, after).map((c) => toJournalChange(this.lookup, c));
      this.journal.append(SYSTEM_ACTOR, { key: 'applyFailed', reason: reasonOf(error) }, changes, after);
      for (const r of rollbacks) if (r.pendingRevision !== undefined && this.pending.clear(r.pendingRevision)) disarm = true;
    })();
    if (disarm) this.disarmTimer();
  }

  private report(error: unknown, what: string): void {
    this.options.report?.(error, what);
  }
}
