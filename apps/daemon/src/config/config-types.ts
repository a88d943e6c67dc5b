import type { RenderOutput } from '../engine/engine-types.js';

export type ConfigRow = Record<string, unknown>;

/** One stored row of config_rows; singletons have the empty id. */
export interface SnapshotRow {
  id: string;
  data: ConfigRow;
}

/**
 * The whole configuration at one revision: every config_rows row, by entity name, in
 * insertion order. Admin accounts are not part of it (their table is not config_rows).
 */
export type ConfigSnapshot = Readonly<Record<string, readonly SnapshotRow[]>>;

/** Who made a change and from where. System changes (automatic reverts) use `system`. */
export interface Actor {
  user: string;
  /** The signed-in account, when there is one: decides whether a change cuts the caller off. */
  accountId?: string;
  sourceIp: string;
}

export type ChangeAction = 'add' | 'update' | 'delete';

/** A change as the writer sees it, before secrets are redacted. */
export interface RawChange {
  entity: string;
  id: string;
  action: ChangeAction;
  before?: ConfigRow;
  after?: ConfigRow;
}

/** A change as the journal keeps and shows it: secrets replaced, changed field names listed. */
export interface JournalChange {
  entity: string;
  id: string;
  action: ChangeAction;
  before: ConfigRow | null;
  after: ConfigRow | null;
  /** Fields whose value differs (secrets included, by name only). */
  fields: string[];
}

/** Puts configuration into effect for the named domains; throws when it cannot. */
export interface ConfigApplier {
  /**
   * Renders and applies the domains. `full` makes every file live again, changed or not: at
   * start the system holds none of it (after a reboot) and no service is supervised yet.
   */
  apply(domains: readonly string[], snapshot: ConfigSnapshot, options?: { full?: boolean }): Promise<void>;
  /** Ends what the applier supervises (daemons it started). */
  stop?(): Promise<void>;
  /**
   * Reconnects a WAN (`network/reconnect`): a fresh DHCP discover or PPPoE dial. Resolves
   * false when the WAN has no client this applier runs (a static WAN).
   */
  reconnect?(wan: string): Promise<boolean>;
}

/** A slice of the configuration that is rendered and applied together. */
export interface ConfigDomain {
  name: string;
  /** Entity names whose rows feed this domain. */
  entities: readonly string[];
  /**
   * Pure: configuration in, files out. Absent while the domain has no renderer yet. What it
   * rendered before and renders no more is removed from the system.
   */
  render?: (snapshot: ConfigSnapshot) => RenderOutput[];
  /**
   * True while what the domain installed is left exactly as it is: nothing rendered, nothing
   * removed (a device with no interface configured yet must keep the way in it has).
   */
  keepInstalled?: (snapshot: ConfigSnapshot) => boolean;
}

/** What a write that can cut the administrator off hands back: confirm before the deadline. */
export interface ConfirmTicket {
  /** One-time token for POST /api/sysconf/confirm; only its hash is stored. */
  token: string;
  /** Epoch milliseconds. */
  deadline: number;
  /** Length of the window. */
  seconds: number;
}

/** Runs `work` after `ms`; returns a function that cancels it. Tests pass a manual one. */
export type Scheduler = (ms: number, work: () => void) => () => void;

export const realScheduler: Scheduler = (ms, work) => {
  const timer = setTimeout(work, ms);
  // The listening socket keeps the daemon alive; a pending revert alone must not.
  timer.unref();
  return () => clearTimeout(timer);
};
