import type { AppContext } from '../../app-context.js';
import { BackupPartRefused, type BackupOutsideStep, type BackupPart } from '../../config/backup-part.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { asBackupRefused, type ArchivePart, type OpenedPart } from './maintain-archive.js';

/**
 * The domains' backup parts as a download, a restore and a factory reset drive them: maintain
 * knows them only through AppContext.backupParts (config/backup-part.ts), never by name.
 */

/** What a part writes: its checked state, or null to empty it (factory reset). */
export type PartWrite = readonly [part: BackupPart, state: unknown];

/** Every registered part as it is now, in domain-list order. */
export function captureParts(ctx: AppContext): ArchivePart[] {
  return [...ctx.backupParts].map(([name, part]) => {
    const captured = part.capture(ctx);
    const keys = Object.keys(captured.counts);
    // The restore refuses counts other than the declared ones: never write such an archive.
    if (keys.length !== part.counts.length || !part.counts.every((key) => keys.includes(key))) throw new Error(`backup part ${name} counts ${keys.join(', ')}`);
    return { name, ...captured };
  });
}

/**
 * Each part the archive carries, checked by its domain against the configuration being
 * restored, in domain-list order; a registered part the archive lacks is left out, and so
 * left as it is. Throws BackupRefused naming the first refused row.
 */
export function validateParts(ctx: AppContext, opened: ReadonlyMap<string, OpenedPart>, snapshot: ConfigSnapshot): PartWrite[] {
  const writes: PartWrite[] = [];
  for (const [name, part] of ctx.backupParts) {
    const carried = opened.get(name);
    if (!carried) continue;
    try {
      writes.push([part, part.validate(carried.content, carried.counts, snapshot)]);
    } catch (error) {
      throw error instanceof BackupPartRefused ? asBackupRefused(error) : error;
    }
  }
  return writes;
}

/** A factory reset: every part emptied. */
export function emptyParts(ctx: AppContext): PartWrite[] {
  return [...ctx.backupParts.values()].map((part) => [part, null] as const);
}

/**
 * Writes the parts inside the caller's transaction, then installs their steps outside the
 * database as its last step. `steps` collects them for the caller: undone if the transaction
 * fails, done once it committed.
 */
export function writeParts(ctx: AppContext, writes: readonly PartWrite[], steps: BackupOutsideStep[]): void {
  for (const [part, state] of writes) {
    const step = part.write(ctx, state);
    if (step) steps.push(step);
  }
  for (const step of steps) step.install();
}
