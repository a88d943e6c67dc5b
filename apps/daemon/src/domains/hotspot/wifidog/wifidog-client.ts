import { wifidogOrigin, wifidogQuery, wifidogScriptUrl, type WifidogConfig } from './wifidog-redirect.js';

/**
 * The gateway's calls to a WiFiDog auth server: `auth/?stage=login|counters|logout` answered by
 * an `Auth: <code>` line, and the `ping/` heartbeat answered by `Pong`. The server is another
 * party on the network: its answers are read up to a small bound, must be UTF-8 text, and
 * anything but the documented forms counts as an error, never as a grant.
 */

/** The codes of the protocol's `Auth:` line. */
export const WIFIDOG_AUTH_CODES = {
  error: -1,
  denied: 0,
  allowed: 1,
  /** Admitted for a short probation while the user validates a new account. */
  validation: 5,
  /** The probation ran out without validation. */
  validationFailed: 6,
  locked: 254,
} as const;

export type WifidogAuthCode = keyof typeof WIFIDOG_AUTH_CODES;

const CODE_BY_NUMBER = new Map<string, WifidogAuthCode>(
  Object.entries(WIFIDOG_AUTH_CODES).map(([name, value]) => [String(value), name as WifidogAuthCode]),
);

export interface WifidogAuthAnswer {
  code: WifidogAuthCode;
  /** Why the answer is `error` when the server did not say so itself (for the log only). */
  problem?: string;
  /** Set when the server did not answer at all (unreachable, timed out): it counts as down. */
  unreachable?: true;
}

export type WifidogStage = 'login' | 'counters' | 'logout';

/** One client as the auth script is told about it. Byte counters are as seen by the client. */
export interface WifidogClientReport {
  ip: string;
  mac: string;
  token: string;
  incoming: number;
  outgoing: number;
}

/** What the heartbeat reports about the gateway. */
export interface WifidogSystemStats {
  sysUptime: number;
  sysMemfree: number;
  sysLoad: number;
  wifidogUptime: number;
}

export interface WifidogClientOptions {
  config: WifidogConfig;
  gatewayId: string;
  /** Per call; the call counts as failed when it runs out. */
  timeoutMs?: number;
  /** Bound of an answer body; a longer answer is an error. */
  maxAnswerBytes?: number;
  fetch?: typeof fetch;
  /** Tests pass a signal they abort themselves instead of waiting for the real timeout. */
  timeoutSignal?: (ms: number) => AbortSignal;
}

export const WIFIDOG_TIMEOUT_MS = 5000;
export const WIFIDOG_ANSWER_MAX_BYTES = 4096;
const AUTH_LINE = /^Auth:/;
const AUTH_VALUE = /^Auth: ?(-?\d{1,3})$/;

/** Thrown inside a call; the public methods turn it into an error answer. */
class AnswerProblem extends Error {}

/**
 * The code of an answer body: exactly one line `Auth: <n>` with a documented code. Other lines
 * (the reference server adds `Messages: ...`) are allowed; no line, two lines or an unknown
 * code is an error.
 */
export function parseWifidogAuthAnswer(body: string): WifidogAuthAnswer {
  const authLines = body
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => AUTH_LINE.test(line));
  if (authLines.length !== 1) return { code: 'error', problem: authLines.length === 0 ? 'no Auth line' : 'several Auth lines' };
  const value = AUTH_VALUE.exec(authLines[0]!)?.[1];
  const code = value === undefined ? undefined : CODE_BY_NUMBER.get(value);
  return code === undefined ? { code: 'error', problem: 'unknown Auth value' } : { code };
}

/** True when the heartbeat answer has a line that is exactly `Pong`. */
export function isWifidogPong(body: string): boolean {
  return body.split(/\r?\n/).some((line) => line.trim() === 'Pong');
}

function counter(value: number): string {
  return Number.isSafeInteger(value) && value >= 0 ? String(value) : '0';
}

export class WifidogAuthClient {
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly maxAnswerBytes: number;
  private readonly timeoutSignal: (ms: number) => AbortSignal;

  constructor(private readonly options: WifidogClientOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? WIFIDOG_TIMEOUT_MS;
    this.maxAnswerBytes = options.maxAnswerBytes ?? WIFIDOG_ANSWER_MAX_BYTES;
    this.timeoutSignal = options.timeoutSignal ?? ((ms) => AbortSignal.timeout(ms));
  }

  /** `auth/?stage=...&ip=&mac=&token=&incoming=&outgoing=&gw_id=`. */
  async auth(stage: WifidogStage, client: WifidogClientReport): Promise<WifidogAuthAnswer> {
    const url = wifidogScriptUrl(this.options.config, 'auth/', [
      ['stage', stage],
      ['ip', client.ip],
      ['mac', client.mac],
      ['token', client.token],
      ['incoming', counter(client.incoming)],
      ['outgoing', counter(client.outgoing)],
      ['gw_id', this.options.gatewayId],
    ]);
    try {
      return parseWifidogAuthAnswer(await this.get(url));
    } catch (error) {
      return error instanceof AnswerProblem ? { code: 'error', problem: error.message } : { code: 'error', problem: problemOf(error), unreachable: true };
    }
  }

  login(client: WifidogClientReport): Promise<WifidogAuthAnswer> {
    return this.auth('login', client);
  }

  counters(client: WifidogClientReport): Promise<WifidogAuthAnswer> {
    return this.auth('counters', client);
  }

  logout(client: WifidogClientReport): Promise<WifidogAuthAnswer> {
    return this.auth('logout', client);
  }

  /** `ping/?gw_id=&sys_uptime=&sys_memfree=&sys_load=&wifidog_uptime=`; true when answered `Pong`. */
  async ping(stats: WifidogSystemStats): Promise<{ online: boolean; problem?: string }> {
    const { config, gatewayId } = this.options;
    const load = Number.isFinite(stats.sysLoad) && stats.sysLoad >= 0 ? stats.sysLoad.toFixed(2) : '0.00';
    const url = `${wifidogOrigin(config)}${config.keepalivePath}?${wifidogQuery([
      ['gw_id', gatewayId],
      ['sys_uptime', counter(Math.floor(stats.sysUptime))],
      ['sys_memfree', counter(Math.floor(stats.sysMemfree))],
      ['sys_load', load],
      ['wifidog_uptime', counter(Math.floor(stats.wifidogUptime))],
    ])}`;
    try {
      return isWifidogPong(await this.get(url)) ? { online: true } : { online: false, problem: 'no Pong' };
    } catch (error) {
      return { online: false, problem: problemOf(error) };
    }
  }

  /** The body of a 200 answer, bounded, as UTF-8 text; redirects are not followed. */
  private async get(url: string): Promise<string> {
    const response = await this.fetch(url, {
      method: 'GET',
      redirect: 'manual',
      headers: { accept: 'text/plain, */*;q=0.1' },
      signal: this.timeoutSignal(this.timeoutMs),
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new AnswerProblem(`HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > this.maxAnswerBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new AnswerProblem('answer too large');
    }
    const bytes = await readBounded(response, this.maxAnswerBytes);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new AnswerProblem('answer is not UTF-8 text');
    }
  }
}

/** Reads at most `max` bytes of the body; more is an error and the rest is not read. */
async function readBounded(response: Response, max: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new AnswerProblem('answer too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function problemOf(error: unknown): string {
  if (error instanceof AnswerProblem) return error.message;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'no answer in time';
  return 'auth server unreachable';
}
