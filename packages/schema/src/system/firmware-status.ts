/**
 * The firmware flow's state as the device reports it (GET sysconf/bgcheck, spec §4/§7): the
 * daemon's job produces it, the console's firmware card reads it back defensively.
 */

export const FIRMWARE_OPERATIONS = ['check', 'download', 'upload', 'filecheck', 'upgrade'] as const;
export type FirmwareOperation = (typeof FIRMWARE_OPERATIONS)[number];

export interface FirmwareStatus {
  /** The operation under way or last run. */
  operation: FirmwareOperation | null;
  running: boolean;
  /** Epoch milliseconds the operation started at, and whole seconds since, by the device's clock. */
  startedAt: number | null;
  elapsedSeconds: number;
  /** Bytes downloaded, received, checked or written so far, of `total`. */
  done: number;
  total: number | null;
  /** The version the device runs. */
  current: string;
  serverConfigured: boolean;
  /** The last check: the version offered and whether it is newer than the one running. */
  latest: { version: string; size: number; newer: boolean } | null;
  /** The image kept on the device for an upgrade. */
  file: { version: string | null; size: number; verified: boolean } | null;
  /** How the last operation failed: a message key, and for a refused file why. */
  error: { msg: string; reason: string | null } | null;
  /** The upgrade was installed; the device restarts into it. */
  upgraded: { version: string; keepConfig: boolean } | null;
  slots: { running: string; versions: Record<string, string | null>; trial: { slot: string; triesLeft: number } | null; unavailable: boolean };
  maxBytes: number;
  /** Seconds the restart into the new firmware takes. */
  restartSeconds: number;
}
