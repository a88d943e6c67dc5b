import { createWriteStream, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FirmwareOperation, FirmwareStatus } from '@portico/schema';
import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import {
  compareVersions,
  FIRMWARE_BOARD,
  FirmwareRefused,
  firmwareVersion,
  verifyFirmwareFile,
  type VerifiedImage,
} from './maintain-firmware-image.js';
import { SlotsUnavailable, type SlotDevice } from './maintain-firmware-slots.js';

/**
 * The firmware flow of spec §4 and §7, held on the device so a page reload finds it where it
 * was: check the update server's version → download the named version (or take an upload) →
 * file check (signature, size, digest) → upgrade into the other slot → restart. One operation
 * at a time; each reports its start, so the console counts seconds, and its bytes.
 */
export const FIRMWARE_MSG = {
  busy: 'msg.firmwareFlow.busy',
  noServer: 'msg.firmwareFlow.noServer',
  connectFailed: 'msg.firmwareFlow.connectFailed',
  noNewVersion: 'msg.firmwareFlow.noNewVersion',
  notChecked: 'msg.firmwareFlow.notChecked',
  noFile: 'msg.firmwareFlow.noFile',
  notVerified: 'msg.firmwareFlow.notVerified',
  corrupt: 'msg.firmwareFlow.corrupt',
  downloadFailed: 'msg.firmwareFlow.downloadFailed',
  uploadFailed: 'msg.firmwareFlow.uploadFailed',
  tooLarge: 'msg.firmwareFlow.tooLarge',
  noKey: 'msg.firmwareFlow.noKey',
  slotsUnavailable: 'msg.firmwareFlow.slotsUnavailable',
  upgradeFailed: 'msg.firmwareFlow.upgradeFailed',
} as const;


/** The update server's answer: hostile input, read within bounds. */
export const updateManifest = z
  .object({
    version: firmwareVersion,
    board: z.string().max(32).optional(),
    /** The image's address, absolute or relative to the manifest's. */
    url: z.string().min(1).max(2048),
    size: z.number().int().positive(),
  })
  .strip();

/** A manifest is a few fields. */
const MANIFEST_LIMIT = 64 * 1024;
/** The largest image the device takes: its root partition is 2 GiB at most. */
export const FIRMWARE_MAX_BYTES = 2 * 1024 * 1024 * 1024;
/** A download with no byte for this long has stalled. */
const DOWNLOAD_IDLE_MS = 60_000;

export interface FirmwareJobOptions {
  dir: string;
  now: () => number;
  slots: SlotDevice;
  /** The version running when the slots know none. */
  fallbackVersion: string;
  updateUrl: string;
  restartSeconds: number;
  /** Null: no key on the device, so no image can be trusted. */
  key: () => KeyObject | null;
  maxBytes?: number;
  fetch?: typeof fetch;
  /** Milliseconds a check may take. */
  checkTimeoutMs?: number;
  /** Milliseconds a download may go without a byte. */
  idleTimeoutMs?: number;
  /** After a successful install: reset the configuration (unless kept) and restart. */
  afterInstall: (keepConfig: boolean) => Promise<void> | void;
  report: (error: unknown, what: string) => void;
}

export class FirmwareFlowError extends Error {
  constructor(
    readonly msg: string,
    readonly reason: string | null = null,
  ) {
    super(reason ? `${msg}: ${reason}` : msg);
  }
}

/** The one firmware flow of the device. */
export class FirmwareJob {
  private operation: FirmwareOperation | null = null;
  private running = false;
  private startedAt: number | null = null;
  private done = 0;
  private total: number | null = null;
  private latest: { version: string; size: number; newer: boolean; url: string } | null = null;
  private file: { version: string | null; size: number; verified: boolean } | null = null;
  private error: { msg: string; reason: string | null } | null = null;
  private upgraded: { version: string; keepConfig: boolean } | null = null;
  private readonly maxBytes: number;
  private readonly fetcher: typeof fetch;
  /** The running operation, for tests and for a stop. */
  current: Promise<void> = Promise.resolve();

  constructor(private readonly options: FirmwareJobOptions) {
    this.maxBytes = options.maxBytes ?? FIRMWARE_MAX_BYTES;
    this.fetcher = options.fetch ?? fetch;
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    // A download cut by a stop is never taken for a whole one.
    rmSync(this.partPath, { force: true });
    try {
      const size = statSync(this.imagePath).size;
      this.file = { version: null, size, verified: false };
    } catch {
      this.file = null;
    }
  }

  get imagePath(): string {
    return join(this.options.dir, 'firmware.img');
  }

  private get partPath(): string {
    return `${this.imagePath}.part`;
  }

  currentVersion(): string {
    const view = this.options.slots.view();
    return view.versions[view.running] ?? this.options.fallbackVersion;
  }

  status(): FirmwareStatus {
    const view = this.options.slots.view();
    return {
      operation: this.operation,
      running: this.running,
      startedAt: this.startedAt,
      elapsedSeconds: this.startedAt === null ? 0 : Math.max(0, Math.floor(((this.running ? this.options.now() : this.endedAt) - this.startedAt) / 1000)),
      done: this.done,
      total: this.total,
      current: this.currentVersion(),
      serverConfigured: this.options.updateUrl !== '',
      latest: this.latest && { version: this.latest.version, size: this.latest.size, newer: this.latest.newer },
      file: this.file && { ...this.file },
      error: this.error && { ...this.error },
      upgraded: this.upgraded && { ...this.upgraded },
      slots: { running: view.running, versions: { ...view.versions }, trial: view.trial && { ...view.trial }, unavailable: view.unavailable !== null },
      maxBytes: this.maxBytes,
      restartSeconds: this.options.restartSeconds,
    };
  }

  private endedAt = 0;

  /** Starts `work` as the one operation; refused while another runs. */
  private start(operation: FirmwareOperation, work: () => Promise<void>): void {
    if (this.running) throw new FirmwareFlowError(FIRMWARE_MSG.busy);
    this.operation = operation;
    this.running = true;
    this.startedAt = this.options.now();
    this.done = 0;
    this.total = null;
    this.error = null;
    this.current = work()
      .catch((error: unknown) => {
        if (error instanceof FirmwareFlowError) this.error = { msg: error.msg, reason: error.reason };
        else {
          this.options.report(error, `firmware ${operation} failed`);
          this.error = { msg: operation === 'upgrade' ? FIRMWARE_MSG.upgradeFailed : FIRMWARE_MSG.downloadFailed, reason: null };
        }
      })
      .finally(() => {
        this.running = false;
        this.endedAt = this.options.now();
      });
  }

  private requireKey(): KeyObject {
    const key = this.options.key();
    if (!key) throw new FirmwareFlowError(FIRMWARE_MSG.noKey);
    return key;
  }

  /** bgcheck: asks the update server for its latest version. */
  check(): void {
    if (this.options.updateUrl === '') throw new FirmwareFlowError(FIRMWARE_MSG.noServer);
    this.start('check', async () => {
      this.latest = null;
      const manifestUrl = new URL(this.options.updateUrl);
      let body: unknown;
      try {
        const response = await this.fetcher(manifestUrl, {
          redirect: 'error',
          signal: AbortSignal.timeout(this.options.checkTimeoutMs ?? 30_000),
          headers: { accept: 'application/json' },
        });
        if (!response.ok || !response.body) throw new Error(`update server answered ${response.status}`);
        body = JSON.parse(await readBounded(response.body, MANIFEST_LIMIT));
      } catch (error) {
        throw new FirmwareFlowError(FIRMWARE_MSG.connectFailed, error instanceof Error ? error.message.slice(0, 200) : null);
      }
      const parsed = updateManifest.safeParse(body);
      if (!parsed.success) throw new FirmwareFlowError(FIRMWARE_MSG.connectFailed, 'the update server answered no firmware description');
      const manifest = parsed.data;
      let imageUrl: URL;
      try {
        imageUrl = new URL(manifest.url, manifestUrl);
      } catch {
        throw new FirmwareFlowError(FIRMWARE_MSG.connectFailed, 'image address unreadable');
      }
      if (imageUrl.protocol !== 'http:' && imageUrl.protocol !== 'https:') throw new FirmwareFlowError(FIRMWARE_MSG.connectFailed, 'image address not http');
      if (manifest.board !== undefined && manifest.board !== FIRMWARE_BOARD) throw new FirmwareFlowError(FIRMWARE_MSG.noNewVersion);
      const newer = compareVersions(manifest.version, this.currentVersion()) > 0;
      this.latest = { version: manifest.version, size: manifest.size, newer, url: imageUrl.href };
    });
  }

  /** bgdownload: fetches the version the last check offered, streamed to disk within its size. */
  download(): void {
    const offer = this.latest;
    if (!offer) throw new FirmwareFlowError(FIRMWARE_MSG.notChecked);
    if (!offer.newer) throw new FirmwareFlowError(FIRMWARE_MSG.noNewVersion);
    if (offer.size > this.maxBytes) throw new FirmwareFlowError(FIRMWARE_MSG.tooLarge);
    this.start('download', async () => {
      this.total = offer.size;
      this.discardFile();
      // A server that stops sending must not hold the flow forever: no byte for a minute ends it.
      const idle = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      let body: Readable | undefined;
      const stillAlive = () => {
        if (timer !== undefined) clearTimeout(timer);
        timer = setTimeout(() => {
          const stalled = new Error('the update server stopped sending');
          idle.abort(stalled);
          body?.destroy(stalled);
        }, this.options.idleTimeoutMs ?? DOWNLOAD_IDLE_MS);
        timer.unref?.();
      };
      stillAlive();
      let response: Response;
      try {
        response = await this.fetcher(offer.url, { redirect: 'error', signal: idle.signal });
        if (!response.ok || !response.body) throw new Error(`update server answered ${response.status}`);
      } catch (error) {
        throw new FirmwareFlowError(FIRMWARE_MSG.connectFailed, error instanceof Error ? error.message.slice(0, 200) : null);
      }
      const declared = Number(response.headers.get('content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > offer.size) {
        await response.body?.cancel();
        throw new FirmwareFlowError(FIRMWARE_MSG.tooLarge);
      }
      try {
        body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
        await this.receive(body, offer.size, stillAlive);
      } catch (error) {
        if (error instanceof FirmwareFlowError) throw error;
        throw new FirmwareFlowError(FIRMWARE_MSG.downloadFailed, error instanceof Error ? error.message.slice(0, 200) : null);
      } finally {
        clearTimeout(timer);
      }
      if (this.done !== offer.size) {
        rmSync(this.imagePath, { force: true });
        this.file = null;
        throw new FirmwareFlowError(FIRMWARE_MSG.downloadFailed, `received ${this.done} of ${offer.size} bytes`);
      }
      this.file = { version: offer.version, size: this.done, verified: false };
    });
  }

  /**
   * A manual upload (multipart, streamed): the stream is written to disk as it arrives, never
   * beyond the device's limit. Resolves when the file is stored.
   */
  async upload(stream: Readable): Promise<void> {
    if (this.running) throw new FirmwareFlowError(FIRMWARE_MSG.busy);
    let resolveDone!: () => void;
    let rejectDone!: (error: unknown) => void;
    const stored = new Promise<void>((resolve, reject) => {
      resolveDone = resolve;
      rejectDone = reject;
    });
    this.start('upload', async () => {
      this.discardFile();
      try {
        await this.receive(stream, this.maxBytes);
        if (this.done === 0) throw new FirmwareFlowError(FIRMWARE_MSG.uploadFailed, 'empty file');
        this.file = { version: null, size: this.done, verified: false };
        resolveDone();
      } catch (error) {
        rmSync(this.imagePath, { force: true });
        this.file = null;
        const refusal = error instanceof FirmwareFlowError ? error : new FirmwareFlowError(FIRMWARE_MSG.uploadFailed, error instanceof Error ? error.message.slice(0, 200) : null);
        rejectDone(refusal);
        throw refusal;
      }
    });
    return stored;
  }

  /** bgfilecheck: signature, size and digest of the kept file. */
  fileCheck(): void {
    const file = this.file;
    if (!file) throw new FirmwareFlowError(FIRMWARE_MSG.noFile);
    const key = this.requireKey();
    this.start('filecheck', async () => {
      this.total = file.size;
      const image = await this.verify(key);
      this.file = { version: image.header.version, size: file.size, verified: true };
    });
  }

  /** bgupgrade: verified once more, written into the other slot, then the restart. */
  upgrade(keepConfig: boolean): void {
    const file = this.file;
    if (!file) throw new FirmwareFlowError(FIRMWARE_MSG.noFile);
    if (!file.verified) throw new FirmwareFlowError(FIRMWARE_MSG.notVerified);
    const key = this.requireKey();
    if (this.options.slots.view().unavailable) throw new FirmwareFlowError(FIRMWARE_MSG.slotsUnavailable);
    this.start('upgrade', async () => {
      this.total = file.size;
      // The file may have changed on disk since its check: nothing is written unless it verifies now.
      const image = await this.verify(key);
      this.done = 0;
      this.total = image.header.size;
      try {
        await this.options.slots.install(this.imagePath, image, (written) => {
          this.done = written;
        });
      } catch (error) {
        if (error instanceof SlotsUnavailable) throw new FirmwareFlowError(FIRMWARE_MSG.slotsUnavailable, error.message);
        throw error;
      }
      this.upgraded = { version: image.header.version, keepConfig };
      this.discardFile();
      await this.options.afterInstall(keepConfig);
    });
  }

  private async verify(key: KeyObject): Promise<VerifiedImage> {
    try {
      return await verifyFirmwareFile(this.imagePath, key, this.maxBytes, (read) => {
        this.done = read;
      });
    } catch (error) {
      if (error instanceof FirmwareRefused) {
        if (this.file) this.file.verified = false;
        throw new FirmwareFlowError(FIRMWARE_MSG.corrupt, error.reason);
      }
      throw error;
    }
  }

  private discardFile(): void {
    rmSync(this.imagePath, { force: true });
    rmSync(this.partPath, { force: true });
    this.file = null;
  }

  /** Streams to `<image>.part`, counting, refusing beyond `limit`; renamed into place when whole. */
  private async receive(source: Readable, limit: number, onChunk: () => void = () => undefined): Promise<void> {
    const counter = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        onChunk();
        this.done += chunk.length;
        if (this.done > limit) done(new FirmwareFlowError(FIRMWARE_MSG.tooLarge));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(source, counter, createWriteStream(this.partPath, { mode: 0o600 }));
    } catch (error) {
      rmSync(this.partPath, { force: true });
      // @fastify/multipart marks a file cut at its limit, or fails it with its own code.
      if ((source as { truncated?: boolean }).truncated || (error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
        throw new FirmwareFlowError(FIRMWARE_MSG.tooLarge);
      }
      throw error;
    }
    if ((source as { truncated?: boolean }).truncated) {
      rmSync(this.partPath, { force: true });
      throw new FirmwareFlowError(FIRMWARE_MSG.tooLarge);
    }
    renameSync(this.partPath, this.imagePath);
  }
}

/** Reads a web stream as text, refusing more than `limit` bytes. */
async function readBounded(body: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > limit) throw new Error('answer too large');
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}
