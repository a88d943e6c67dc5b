import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isIpv4, isMac, type PppServerKind, type PppSession } from '@portico/schema';
import { PPP_SESSION_DIR } from './ppp-server-files.js';

/**
 * The online sessions of the PPP servers: the link hook's records (ppp-server-hook.mjs) held
 * to what the kernel says. A record counts only while its interface exists and its pppd still
 * runs (a pppd that died without its down hook leaves a record nobody answers to); bytes come
 * from the interface's counters. Every recorded value came from a client and is checked again.
 */
export interface SessionSource {
  /** The install root the hook records under. */
  root: string;
  /** Where /sys and /proc are read (a test's fake tree; `/` on a device). */
  kernel?: string;
}

interface SessionRecord extends PppSession {
  kind: PppServerKind;
  pid: number;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function counter(kernel: string, ifname: string, name: string): number {
  const value = Number(readText(join(kernel, 'sys/class/net', ifname, 'statistics', name))?.trim());
  return Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/** Whether `pid` is a running pppd (and not a recycled number now held by something else). */
export function isPppd(kernel: string, pid: number): boolean {
  return readText(join(kernel, 'proc', String(pid), 'comm'))?.trim() === 'pppd';
}

function recordOf(value: unknown): SessionRecord | null {
  if (!value || typeof value !== 'object') return null;
  const r = value as Record<string, unknown>;
  const kind = r.kind;
  if (kind !== 'pptp' && kind !== 'l2tp' && kind !== 'pppoe') return null;
  if (typeof r.ifname !== 'string' || !/^ppp[0-9]{1,5}$/.test(r.ifname)) return null;
  if (typeof r.pid !== 'number' || !Number.isSafeInteger(r.pid) || r.pid < 2) return null;
  const username = typeof r.username === 'string' && /^[A-Za-z0-9._@-]{1,64}$/.test(r.username) ? r.username : '';
  const from = typeof r.from === 'string' && (isIpv4(r.from) || isMac(r.from.toLowerCase())) ? r.from.toLowerCase() : '';
  const address = typeof r.address === 'string' && isIpv4(r.address) ? r.address : '';
  const since = typeof r.at === 'number' && Number.isSafeInteger(r.at) ? r.at : 0;
  return { kind, ifname: r.ifname, pid: r.pid, username, from, address, since, rx: 0, tx: 0 };
}

function records(source: SessionSource): SessionRecord[] {
  const dir = join(source.root, PPP_SESSION_DIR);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /^ppp[0-9]{1,5}\.json$/.test(name));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const text = readText(join(dir, name));
    if (text === null) return [];
    try {
      const record = recordOf(JSON.parse(text));
      return record ? [record] : [];
    } catch {
      return [];
    }
  });
}

/** The live sessions of one server, oldest first. */
export function pppSessions(source: SessionSource, kind: PppServerKind): Array<PppSession & { pid: number }> {
  const kernel = source.kernel ?? '/';
  return records(source)
    .filter((record) => record.kind === kind && isPppd(kernel, record.pid) && readText(join(kernel, 'sys/class/net', record.ifname, 'ifindex')) !== null)
    .map(({ kind: _kind, ...session }) => ({ ...session, rx: counter(kernel, session.ifname, 'rx_bytes'), tx: counter(kernel, session.ifname, 'tx_bytes') }))
    .sort((a, b) => a.since - b.since);
}

/**
 * Ends one session: its pppd gets SIGTERM (it hangs up and runs its down hook). False when no
 * live session of that server has that interface.
 */
export function kickPppSession(source: SessionSource, kind: PppServerKind, ifname: string, kill: (pid: number) => void = (pid) => process.kill(pid, 'SIGTERM')): boolean {
  const session = pppSessions(source, kind).find((candidate) => candidate.ifname === ifname);
  if (!session) return false;
  kill(session.pid);
  return true;
}
