import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { LicenseRefused, verifyLicense, type License, type LicenseRefusal } from './license-file.js';

/**
 * The device licence (spec §4): unlicensed → activating → activation failed | activation
 * success; licensed once a valid licence file for this device is held; locked (the piracy
 * warning) when the licence server reports the device or code as pirated, or a licence of
 * another device was put on this one. Activation asks the licence server; a licence file can
 * also be imported offline. The file is kept under the state folder and verified at every read.
 */
export const LICENSE_MSG = {
  busy: 'msg.license.busy',
  noServer: 'msg.license.noServer',
  noKey: 'msg.license.noKey',
  connectFailed: 'msg.license.connectFailed',
  invalidCode: 'msg.license.invalidCode',
  codeUsed: 'msg.license.codeUsed',
  locked: 'msg.license.locked',
  refused: {
    format: 'msg.license.refusedFormat',
    signature: 'msg.license.refusedSignature',
    otherDevice: 'msg.license.refusedOtherDevice',
    expired: 'msg.license.refusedExpired',
  },
} as const;

export type LicenseState = 'unlicensed' | 'activating' | 'activationFailed' | 'activationSuccess' | 'licensed' | 'locked';

export class LicenseFlowError extends Error {
  constructor(
    readonly msg: string,
    readonly reason: string | null = null,
  ) {
    super(msg);
  }
}

/** The licence server's answer: hostile input. */
const serverAnswer = z.discriminatedUnion('result', [
  z.object({ result: z.literal('ok'), license: z.string().max(16 * 1024) }),
  z.object({ result: z.literal('refused'), reason: z.enum(['invalidCode', 'used']) }),
  z.object({ result: z.literal('locked') }),
]);

const lockSchema = z.object({ reason: z.enum(['server', 'otherDevice']), at: z.number() }).strict();
const ANSWER_LIMIT = 32 * 1024;

export interface LicenseView {
  state: LicenseState;
  isRegister: boolean;
  locked: boolean;
  lockReason: 'server' | 'otherDevice' | null;
  sn: string;
  mac: string;
  is_x86: boolean;
  license: Pick<License, 'id' | 'edition' | 'issued' | 'expires'> | null;
  /** Why the kept licence file is not valid (expired …), when one is kept. */
  fileProblem: LicenseRefusal | null;
  serverConfigured: boolean;
  attempt: { running: boolean; startedAt: number; elapsedSeconds: number; error: { msg: string; reason: string | null } | null } | null;
}

export interface LicenseServiceOptions {
  dir: string;
  now: () => number;
  key: () => KeyObject | null;
  identity: () => { sn: string; mac: string; is_x86: boolean };
  url: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  report: (error: unknown, what: string) => void;
}

export class LicenseService {
  private attempt: { running: boolean; startedAt: number; endedAt: number; error: { msg: string; reason: string | null } | null; success: boolean } | null = null;
  current: Promise<void> = Promise.resolve();

  constructor(private readonly options: LicenseServiceOptions) {
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  }

  private get licenseFile(): string {
    return join(this.options.dir, 'license.json');
  }
  private get lockFile(): string {
    return join(this.options.dir, 'lock.json');
  }

  private readLock(): z.infer<typeof lockSchema> | null {
    try {
      return lockSchema.parse(JSON.parse(readFileSync(this.lockFile, 'utf8')));
    } catch {
      return null;
    }
  }

  private writeFile(file: string, text: string): void {
    const temp = `${file}.tmp`;
    writeFileSync(temp, text, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, file);
  }

  private lock(reason: 'server' | 'otherDevice'): void {
    this.writeFile(this.lockFile, `${JSON.stringify({ reason, at: this.options.now() })}\n`);
  }

  /** The kept licence, verified now (its expiry by the device's clock). */
  private held(): { license: License | null; problem: LicenseRefusal | null } {
    let text: string;
    try {
      text = readFileSync(this.licenseFile, 'utf8');
    } catch {
      return { license: null, problem: null };
    }
    const key = this.options.key();
    if (!key) return { license: null, problem: 'signature' };
    try {
      return { license: verifyLicense(text, key, this.options.identity().sn, this.options.now()), problem: null };
    } catch (error) {
      if (error instanceof LicenseRefused) return { license: null, problem: error.reason };
      throw error;
    }
  }

  view(): LicenseView {
    const identity = this.options.identity();
    const held = this.held();
    // A genuine licence of another device on this one: copied.
    if (held.problem === 'otherDevice' && !this.readLock()) this.lock('otherDevice');
    const lock = this.readLock();
    const attempt = this.attempt;
    let state: LicenseState;
    if (lock) state = 'locked';
    else if (attempt?.running) state = 'activating';
    else if (attempt?.error) state = 'activationFailed';
    else if (attempt?.success && held.license) state = 'activationSuccess';
    else state = held.license ? 'licensed' : 'unlicensed';
    const { license } = held;
    return {
      state,
      isRegister: held.license !== null && !lock,
      locked: lock !== null,
      lockReason: lock?.reason ?? null,
      ...identity,
      license: license && { id: license.id, edition: license.edition, issued: license.issued, expires: license.expires },
      fileProblem: held.problem,
      serverConfigured: this.options.url !== '',
      attempt: attempt && {
        running: attempt.running,
        startedAt: attempt.startedAt,
        elapsedSeconds: Math.max(0, Math.floor(((attempt.running ? this.options.now() : attempt.endedAt) - attempt.startedAt) / 1000)),
        error: attempt.error,
      },
    };
  }

  /** Keeps a licence file after verifying it for this device; a copied one locks the device. */
  private keep(text: string): License {
    const key = this.options.key();
    if (!key) throw new LicenseFlowError(LICENSE_MSG.noKey);
    let license: License;
    try {
      license = verifyLicense(text, key, this.options.identity().sn, this.options.now());
    } catch (error) {
      if (!(error instanceof LicenseRefused)) throw error;
      throw new LicenseFlowError(LICENSE_MSG.refused[error.reason], error.reason);
    }
    this.writeFile(this.licenseFile, text);
    // A valid licence of this device ends a lock a copied one had set.
    if (this.readLock()?.reason === 'otherDevice') rmSync(this.lockFile, { force: true });
    return license;
  }

  /** An offline licence file (the vendor's, for a device without access to the licence server). */
  import(text: string): void {
    if (this.attempt?.running) throw new LicenseFlowError(LICENSE_MSG.busy);
    this.keep(text);
    this.attempt = null;
  }

  /** Activation with a code against the licence server, in the background. */
  activate(code: string): void {
    if (this.options.url === '') throw new LicenseFlowError(LICENSE_MSG.noServer);
    if (this.attempt?.running) throw new LicenseFlowError(LICENSE_MSG.busy);
    const attempt = { running: true, startedAt: this.options.now(), endedAt: 0, error: null as { msg: string; reason: string | null } | null, success: false };
    this.attempt = attempt;
    this.current = this.ask(code)
      .then((text) => {
        this.keep(text);
        attempt.success = true;
      })
      .catch((error: unknown) => {
        if (error instanceof LicenseFlowError) attempt.error = { msg: error.msg, reason: error.reason };
        else {
          this.options.report(error, 'licence activation failed');
          attempt.error = { msg: LICENSE_MSG.connectFailed, reason: null };
        }
      })
      .finally(() => {
        attempt.running = false;
        attempt.endedAt = this.options.now();
      });
  }

  private async ask(code: string): Promise<string> {
    const identity = this.options.identity();
    let answer: unknown;
    try {
      const response = await (this.options.fetch ?? fetch)(this.options.url, {
        method: 'POST',
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ device: identity.sn, mac: identity.mac, code }),
      });
      if (!response.ok || !response.body) throw new Error(`licence server answered ${response.status}`);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        if (size > ANSWER_LIMIT) throw new Error('answer too large');
        chunks.push(Buffer.from(chunk));
      }
      answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (error) {
      throw new LicenseFlowError(LICENSE_MSG.connectFailed, error instanceof Error ? error.message.slice(0, 200) : null);
    }
    const parsed = serverAnswer.safeParse(answer);
    if (!parsed.success) throw new LicenseFlowError(LICENSE_MSG.connectFailed, 'the licence server gave no licence answer');
    const result = parsed.data;
    if (result.result === 'locked') {
      this.lock('server');
      throw new LicenseFlowError(LICENSE_MSG.locked);
    }
    if (result.result === 'refused') throw new LicenseFlowError(result.reason === 'used' ? LICENSE_MSG.codeUsed : LICENSE_MSG.invalidCode);
    return result.license;
  }
}
