import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { terminalResizeSchema, type TerminalEnded, type TerminalEndReason, type TerminalStatus } from '@portico/schema';

/** Who opened a terminal: the account, its address and the session it rides on. */
export interface TerminalOwner {
  user: string;
  address: string;
  /** The SHA-256 of the console session id (plugins/session-store.ts). */
  sessionHash: string;
}

/** One terminal as the journal sees it. */
export interface TerminalRecord extends TerminalOwner {
  id: string;
  startedAt: number;
}

export interface TerminalJournal {
  opened(terminal: TerminalRecord): void;
  ended(terminal: TerminalRecord, reason: TerminalEndReason, status: number | null, endedAt: number): void;
}

export interface TerminalOptions {
  /** The PTY helper (portico-pty); null when it is not built for this device. */
  helper: string | null;
  /** The program run on the PTY, as an argument vector. */
  command: readonly string[];
  max: number;
  idleMs: number;
  now: () => number;
  journal: TerminalJournal;
  /** Still a live console session: false ends its terminals (sign-out, expiry). */
  sessionLive(sessionHash: string): boolean;
  /** Input on a terminal is use of its console session (keeps it from idling out); false: it has ended. */
  sessionUsed(sessionHash: string): boolean;
}

/** The size the PTY starts with, until the browser's first resize message. */
const START_ROWS = 24;
const START_COLS = 80;
/** Output held for a slow browser before the program's output is paused. */
const BUFFERED_HIGH = 1024 * 1024;
const TERMINAL_ENV: NodeJS.ProcessEnv = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/', LANG: 'C.UTF-8' };
/** After SIGTERM the helper hangs the program up and kills it within 2 s; this is the backstop. */
const KILL_AFTER_MS = 5000;

interface Terminal {
  record: TerminalRecord;
  ws: WebSocket;
  child: ChildProcess;
  control: Writable;
  idle: NodeJS.Timeout;
  /** Set when the daemon ended the session; otherwise the program ended by itself. */
  reason: TerminalEndReason | null;
  done: Promise<void>;
}

/**
 * The open terminals: one portico-pty (and the program it runs) per WebSocket. Input frames go
 * to the PTY, its output back as binary frames; resize messages to the helper's control pipe.
 * A terminal ends when its program exits, its socket closes, it idles, its console session
 * ends, or the daemon stops; ending signals the helper's whole process group.
 */
export class TerminalSessions {
  private readonly open = new Map<string, Terminal>();

  constructor(private readonly options: TerminalOptions) {}

  status(): TerminalStatus {
    return { available: this.options.helper !== null, open: this.open.size, max: this.options.max, idleSeconds: Math.round(this.options.idleMs / 1000) };
  }

  /** False when the device is at its limit of terminals. */
  hasRoom(): boolean {
    return this.open.size < this.options.max;
  }

  /** Runs the program for an accepted socket; a socket over the limit is told and closed. */
  attach(ws: WebSocket, owner: TerminalOwner): void {
    const helper = this.options.helper;
    if (!helper || !this.hasRoom()) {
      endSocket(ws, { type: 'ended', reason: 'failed', status: null }, 1013);
      return;
    }
    const record: TerminalRecord = { ...owner, id: randomBytes(4).toString('hex'), startedAt: this.options.now() };
    // Its own process group (detached), so the whole group can be signalled; no shell, no env from the request.
    const child = spawn(helper, [String(START_ROWS), String(START_COLS), ...this.options.command], {
      stdio: ['pipe', 'pipe', 'ignore', 'pipe'],
      detached: true,
      cwd: '/',
      // Not the daemon's environment (its settings): what a console login starts from.
      env: TERMINAL_ENV,
    });
    const stdin = child.stdin!;
    const stdout = child.stdout!;
    const control = child.stdio[3] as Writable;
    for (const stream of [stdin, control]) stream.on('error', () => undefined);

    let resolveDone!: () => void;
    const terminal: Terminal = {
      record,
      ws,
      child,
      control,
      idle: setTimeout(() => this.end(terminal, 'idle'), this.options.idleMs),
      reason: null,
      done: new Promise((resolve) => (resolveDone = resolve)),
    };
    this.open.set(record.id, terminal);
    this.options.journal.opened(record);

    const active = () => terminal.idle.refresh();
    relayOutput(stdout, ws, active);
    ws.on('message', (data, isBinary) => {
      if (!this.options.sessionUsed(record.sessionHash)) return this.end(terminal, 'signedOut');
      active();
      if (isBinary) stdin.write(toBuffer(data));
      else this.resize(terminal, data);
    });
    ws.on('close', () => this.end(terminal, 'closed'));
    ws.on('error', () => this.end(terminal, 'closed'));

    let spawnFailed = false;
    child.on('error', () => {
      spawnFailed = true;
    });
    // 'close' comes after the helper's output is read to its end.
    child.on('close', (code, signal) => {
      clearTimeout(terminal.idle);
      this.open.delete(record.id);
      const status = spawnFailed ? null : code ?? (signal ? 128 + constants.signals[signal] : null);
      const reason = spawnFailed ? 'failed' : terminal.reason ?? 'exited';
      this.options.journal.ended(record, reason, status, this.options.now());
      endSocket(ws, { type: 'ended', reason, status }, 1000);
      resolveDone();
    });
  }

  /** Ends the terminals whose console session has ended (told by the session store, and on a timer). */
  checkSessions(): void {
    for (const terminal of this.open.values()) if (!this.options.sessionLive(terminal.record.sessionHash)) this.end(terminal, 'signedOut');
  }

  /** Ends every terminal and waits for their programs to be gone. */
  async closeAll(): Promise<void> {
    const all = [...this.open.values()];
    for (const terminal of all) this.end(terminal, 'stopped');
    await Promise.all(all.map((terminal) => terminal.done));
  }

  private resize(terminal: Terminal, data: RawData): void {
    let message: unknown;
    try {
      message = JSON.parse(toBuffer(data).toString('utf8'));
    } catch {
      return;
    }
    const resize = terminalResizeSchema.safeParse(message);
    if (!resize.success) return;
    const frame = Buffer.alloc(4);
    frame.writeUInt16BE(resize.data.rows, 0);
    frame.writeUInt16BE(resize.data.cols, 2);
    terminal.control.write(frame);
  }

  private end(terminal: Terminal, reason: TerminalEndReason): void {
    if (terminal.reason !== null || terminal.child.exitCode !== null || terminal.child.signalCode !== null) return;
    terminal.reason = reason;
    const pid = terminal.child.pid;
    if (pid === undefined) return;
    signalGroup(pid, 'SIGTERM');
    const backstop = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_AFTER_MS);
    backstop.unref();
    void terminal.done.then(() => clearTimeout(backstop));
  }
}

/** Program output to the socket, paused while the browser is behind. */
function relayOutput(stdout: Readable, ws: WebSocket, active: () => void): void {
  stdout.on('data', (chunk: Buffer) => {
    active();
    if (ws.readyState !== ws.OPEN) return;
    ws.send(chunk, { binary: true }, () => {
      if (stdout.isPaused() && ws.bufferedAmount < BUFFERED_HIGH / 2) stdout.resume();
    });
    if (ws.bufferedAmount > BUFFERED_HIGH) stdout.pause();
  });
}

function endSocket(ws: WebSocket, ended: TerminalEnded, code: number): void {
  if (ws.readyState !== ws.OPEN) return;
  ws.send(JSON.stringify(ended));
  ws.close(code);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
