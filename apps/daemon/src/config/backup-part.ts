import { z } from 'zod';
import type { AppContext } from '../app-context.js';
import type { ConfigSnapshot } from './config-types.js';

/**
 * A domain's part of the configuration backup: the rows it keeps outside config_rows (its own
 * tables, files beside the database). The maintain domain seals each part as its own archive
 * entry, `<part>.enc`, counts it in the manifest, and on restore hands the opened content back
 * to the part to check and write. A part is named after its module.
 */

/** What a part's name (its module's name) must look like to travel in a manifest. */
export const BACKUP_PART_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** Ids of the rows a backup carries: what the write paths make, nothing a path could climb with. */
export const BACKUP_ROW_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What one part holds at download: its counts (keys as declared) and its JSON-able content. */
export interface BackupCapture {
  counts: Record<string, number>;
  content: unknown;
}

/**
 * A change outside the database a restore makes with the rows (a key file): prepared by
 * `write`, installed as the restore transaction's last step, undone if the transaction fails,
 * told `done` once it committed.
 */
export interface BackupOutsideStep {
  install(): void;
  undo(): void;
  done(): void;
}

export interface BackupPart<State = unknown> {
  /** The count keys the part reports in the manifest; a manifest naming others is refused. */
  counts: readonly string[];
  /** Bytes: the sealed entry as uploaded, and its content once opened and inflated. */
  limits: { sealed: number; plain: number };
  /** Reads what the part keeps, for a download. */
  capture(ctx: AppContext): BackupCapture;
  /**
   * Checks every row of opened content as the part's write paths would, against the counts of
   * the signed manifest and the configuration being restored; throws BackupPartRefused.
   */
  validate(content: unknown, counts: Readonly<Record<string, number>>, snapshot: ConfigSnapshot): State;
  /**
   * Writes inside the restore's transaction: `state` becomes the whole of the part's tables,
   * null (factory reset) empties them. Answers the step outside the database, if any.
   */
  write(ctx: AppContext, state: State | null): BackupOutsideStep | undefined;
}

/** The row a restore refuses, shown to the administrator: entity, id, field and reason. */
export interface RefusedRow {
  entity: string;
  id: string;
  field: string;
  reason: string;
}

/**
 * Why a part's content is refused: a row (`row` set), or content that does not hold what the
 * signed manifest counts (`row` unset), which only a broken or forged archive does.
 */
export class BackupPartRefused extends Error {
  private constructor(
    message: string,
    readonly row?: RefusedRow,
  ) {
    super(message);
  }

  static row(entity: string, id: string, field: string, reason: string): BackupPartRefused {
    return new BackupPartRefused(`${entity} ${JSON.stringify(id)} ${field}: ${reason}`, { entity, id, field, reason });
  }

  static counts(part: string): BackupPartRefused {
    return new BackupPartRefused(`the manifest does not count the rows of ${part}`);
  }
}

export function refuseRow(entity: string, id: string, field: string, reason: string): never {
  throw BackupPartRefused.row(entity, id, field, reason);
}

/** The field and message of a zod error's first issue, as a refusal names them. */
export function firstIssue(error: z.ZodError): [field: string, reason: string] {
  const issue = error.issues[0];
  return [issue?.path.length ? String(issue.path[issue.path.length - 1]) : '_', issue?.message ?? 'invalid'];
}

/** The id of a raw row for a refusal, whatever the row is. */
export function rawRowId(row: unknown): string {
  const id = (row as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id.slice(0, 128) : '';
}

/** Content whose counts are the lengths of its arrays of the same names (most parts). */
type CountedContent<K extends string> = Record<K, readonly unknown[]>;

/** A capture whose counts are the lengths of the content's arrays named `keys`. */
export function countedCapture<K extends string, T extends CountedContent<K>>(content: T, keys: readonly K[]): BackupCapture {
  return { counts: Object.fromEntries(keys.map((key) => [key, content[key].length])), content };
}

/**
 * Parses the top of a part's content with `schema` (refused as a row of entity `part`), then
 * checks that each array named in `keys` holds as many rows as the signed manifest counts.
 */
export function countedContent<K extends string, T extends CountedContent<K>>(
  part: string,
  schema: z.ZodType<T>,
  content: unknown,
  counts: Readonly<Record<string, number>>,
  keys: readonly K[],
): T {
  const parsed = schema.safeParse(content);
  if (!parsed.success) refuseRow(part, '', ...firstIssue(parsed.error));
  if (keys.some((key) => parsed.data[key].length !== counts[key])) throw BackupPartRefused.counts(part);
  return parsed.data;
}

export const backupRowId = z.string().regex(BACKUP_ROW_ID);
export const backupTimestamp = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
