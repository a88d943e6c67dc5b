import { z } from 'zod';

/**
 * The browser terminal (/rtty): a WebSocket at /api/<TERMINAL_PATH>. Binary frames carry the
 * terminal's bytes both ways; text frames carry the JSON messages below. A plain GET of the
 * same path answers the terminal's status for the signed-in account.
 */
export const TERMINAL_PATH = 'sysconf/rtty';
/** The subprotocol the daemon selects (the other one offered carries the CSRF token). */
export const TERMINAL_PROTOCOL = 'portico-tty';
/** Largest number of rows or columns a terminal may have. */
export const TERMINAL_SIZE_MAX = 1000;

const dimension = z.number().int().min(1).max(TERMINAL_SIZE_MAX);

/** Browser -> daemon: the terminal's window changed size. */
export const terminalResizeSchema = z.object({ type: z.literal('resize'), rows: dimension, cols: dimension }).strict();
export type TerminalResize = z.infer<typeof terminalResizeSchema>;

/** Why a terminal session ended, as the journal and the browser are told. */
export const TERMINAL_END_REASONS = ['exited', 'closed', 'idle', 'signedOut', 'stopped', 'failed'] as const;
export type TerminalEndReason = (typeof TERMINAL_END_REASONS)[number];

/** Daemon -> browser, the last message before the socket closes. */
export interface TerminalEnded {
  type: 'ended';
  reason: TerminalEndReason;
  /** The program's exit status (128 + signal when a signal ended it); null when unknown. */
  status: number | null;
}

/** GET /api/sysconf/rtty. */
export interface TerminalStatus {
  /** False when the device has no PTY helper (not built for it). */
  available: boolean;
  /** Terminals open on the device now, and how many may be. */
  open: number;
  max: number;
  /** Seconds without input or output after which a terminal is closed. */
  idleSeconds: number;
  /** Whether this account may open a terminal (a visitor may not). */
  permitted?: boolean;
}
