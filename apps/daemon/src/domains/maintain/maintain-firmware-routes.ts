import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyMultipart from '@fastify/multipart';
import { z } from 'zod';
import { fieldErrors, MSG, type FirmwareStatus } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { envelope, failure, success } from '../../plugins/api-envelope.js';
import type { RoutePolicy } from '../../plugins/route-policy.js';
import { actorOf } from '../../config/config-write.js';
import type { Actor } from '../../config/config-types.js';
import { DAEMON_VERSION } from '../../drivers/live-source.js';
import { firmwarePublicKey } from './maintain-firmware-image.js';
import { FIRMWARE_MAX_BYTES, FIRMWARE_MSG, FirmwareFlowError, FirmwareJob } from './maintain-firmware-job.js';
import { fileSlotDevice, linuxSlotDevice, type SlotDevice } from './maintain-firmware-slots.js';

export const FIRMWARE_PATHS = {
  check: '/api/sysconf/bgcheck',
  result: '/api/sysconf/bgcheckresult',
  download: '/api/sysconf/bgdownload',
  fileCheck: '/api/sysconf/bgfilecheck',
  upgrade: '/api/sysconf/bgupgrade',
} as const;

/** Name of the multipart file field of a manual firmware upload. */
export const FIRMWARE_FILE_FIELD = 'firmware';

/** What a test replaces: the slots, the fetch, the size limit. */
export interface FirmwareDeps {
  slots?: SlotDevice;
  fetch?: typeof fetch;
  maxBytes?: number;
  idleTimeoutMs?: number;
}

const firmwareStatusSchema = z
  .object({
    operation: z.enum(['check', 'download', 'upload', 'filecheck', 'upgrade']).nullable(),
    running: z.boolean(),
    startedAt: z.number().nullable(),
    elapsedSeconds: z.number().int(),
    done: z.number(),
    total: z.number().nullable(),
    current: z.string(),
    serverConfigured: z.boolean(),
    latest: z.object({ version: z.string(), size: z.number(), newer: z.boolean() }).nullable(),
    file: z.object({ version: z.string().nullable(), size: z.number(), verified: z.boolean() }).nullable(),
    error: z.object({ msg: z.string(), reason: z.string().nullable() }).nullable(),
    upgraded: z.object({ version: z.string(), keepConfig: z.boolean() }).nullable(),
    slots: z.object({
      running: z.string(),
      versions: z.record(z.string(), z.string().nullable()),
      trial: z.object({ slot: z.string(), triesLeft: z.number() }).nullable(),
      unavailable: z.boolean(),
    }),
    maxBytes: z.number(),
    restartSeconds: z.number().int(),
  })
  .meta({ id: 'FirmwareStatus' });

const startBody = z.object({ action: z.literal('update').default('update') }).strict();
const upgradeBody = z
  .object({
    action: z.literal('update').default('update'),
    /** Keep the configuration (the default); false: factory settings after the upgrade. */
    keepConfig: z.boolean({ error: 'validation.option' }).default(true),
  })
  .strict();

/** The device's firmware signing key, read when needed so a key laid down later counts. */
function keyReader(file: string | undefined): () => KeyObject | null {
  return () => {
    if (!file || !existsSync(file)) return null;
    try {
      return firmwarePublicKey(readFileSync(file));
    } catch {
      return null;
    }
  };
}

export interface FirmwareHooks {
  /** Factory settings stored for the restart (an upgrade that does not keep the configuration). */
  resetForRestart: (actor: Actor) => void;
  reboot: (why: string) => void;
  restartSeconds: number;
}

/**
 * System → Maintenance → firmware upgrade: the spec's sequence check → result → download →
 * file check → upgrade (§7 sysconf/bg*), plus the manual upload (multipart on bgdownload).
 * GETs read the flow's state (polled by the console, so a reload finds it); POSTs start a step.
 */
export async function registerFirmwareRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  hooks: FirmwareHooks,
  deps: FirmwareDeps = {},
): Promise<{ slots: SlotDevice; job: FirmwareJob }> {
  const { settings } = ctx;
  const slots = deps.slots ?? (settings.driver === 'sim' ? fileSlotDevice(join(settings.stateDir, 'firmware', 'slots'), DAEMON_VERSION) : linuxSlotDevice(settings.systemRoot));
  // The daemon starting is a boot of the sim's slots (on linux the boot loader chose already).
  slots.boot();
  let actor: Actor = { user: 'unknown', sourceIp: '' };
  const job = new FirmwareJob({
    dir: join(settings.stateDir, 'firmware'),
    now: ctx.now,
    slots,
    fallbackVersion: DAEMON_VERSION,
    restartSeconds: hooks.restartSeconds,
    updateUrl: settings.updateUrl ?? '',
    key: keyReader(settings.firmwareKeyFile),
    maxBytes: deps.maxBytes,
    fetch: deps.fetch,
    idleTimeoutMs: deps.idleTimeoutMs,
    afterInstall: (keepConfig) => {
      if (!keepConfig) hooks.resetForRestart(actor);
      hooks.reboot(keepConfig ? 'firmware upgraded: rebooting' : 'firmware upgraded without the configuration: rebooting');
    },
    report: (error, what) => app.log.error({ err: error }, what),
  });
  // The daemon answering with its configuration applied is a good boot.
  app.addHook('onReady', async () => slots.confirm());

  const read: RoutePolicy = { module: 'systemmaintain', effect: 'read' };
  const act: RoutePolicy = { module: 'systemmaintain', effect: 'action' };
  // Replacing the system is a change of the device, as a factory reset is.
  const write: RoutePolicy = { module: 'systemmaintain', effect: 'write' };
  const statusReply = { 200: envelope(firmwareStatusSchema) };
  const status = (): FirmwareStatus => job.status();

  function attempt(request: FastifyRequest, what: string, work: () => void) {
    try {
      work();
    } catch (error) {
      if (!(error instanceof FirmwareFlowError)) throw error;
      return failure(error.msg, undefined, status());
    }
    request.log.info({ user: request.auth?.account.username, ip: request.ip }, what);
    return success(status());
  }

  for (const [path, summary] of [
    [FIRMWARE_PATHS.check, 'The firmware flow: the operation under way or last run, its counter and bytes'],
    [FIRMWARE_PATHS.result, 'The last version check: the version the update server offers and whether it is newer'],
    [FIRMWARE_PATHS.download, 'The firmware download or upload: bytes received'],
    [FIRMWARE_PATHS.fileCheck, 'The file check of the kept image: signature, size, digest'],
    [FIRMWARE_PATHS.upgrade, 'The upgrade: bytes written into the other slot'],
  ] as const) {
    app.get(path, { config: { policy: read, doc: { summary } }, schema: { response: statusReply } }, async () => success(status()));
  }

  const parse = <T extends z.ZodType>(schema: T, body: unknown) => schema.safeParse(body ?? {});

  app.post(
    FIRMWARE_PATHS.check,
    { config: { policy: act, doc: { summary: 'Asks the update server for its latest firmware', body: startBody } } },
    async (request) => {
      const parsed = parse(startBody, request.body);
      if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
      return attempt(request, 'firmware version check', () => job.check());
    },
  );
  app.post(FIRMWARE_PATHS.result, { config: { policy: { ...read, effect: 'action', actionEffects: { get: 'read' } } } }, async () => success(status()));

  app.post(
    FIRMWARE_PATHS.fileCheck,
    { config: { policy: act, doc: { summary: 'Checks the kept image: signature, size and digest', body: startBody } } },
    async (request) => {
      const parsed = parse(startBody, request.body);
      if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
      return attempt(request, 'firmware file check', () => job.fileCheck());
    },
  );

  app.post(
    FIRMWARE_PATHS.upgrade,
    { config: { policy: write, doc: { summary: 'Writes the checked image into the other slot and restarts into it', body: upgradeBody } } },
    async (request) => {
      const parsed = parse(upgradeBody, request.body);
      if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
      actor = actorOf(request);
      return attempt(request, `firmware upgrade (keep configuration: ${parsed.data.keepConfig})`, () => job.upgrade(parsed.data.keepConfig));
    },
  );

  await app.register(async (scope) => {
    // Multipart here only, limited to the largest image the device takes.
    await scope.register(fastifyMultipart, {
      limits: { fileSize: deps.maxBytes ?? FIRMWARE_MAX_BYTES, files: 1, fields: 0, parts: 1, headerPairs: 50 },
    });
    scope.post(
      FIRMWARE_PATHS.download,
      {
        config: {
          policy: act,
          doc: { summary: 'Downloads the version the last check offered; a multipart upload (file "firmware") stores a firmware file instead', body: startBody },
        },
      },
      async (request) => {
        if (!request.isMultipart()) {
          const parsed = parse(startBody, request.body);
          if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
          return attempt(request, 'firmware download', () => job.download());
        }
        try {
          const part = await request.file();
          if (!part || part.fieldname !== FIRMWARE_FILE_FIELD) {
            part?.file.resume();
            return failure(FIRMWARE_MSG.uploadFailed, undefined, status());
          }
          if (job.status().running) {
            part.file.resume();
            return failure(FIRMWARE_MSG.busy, undefined, status());
          }
          await job.upload(part.file);
          // The answer shows the step ended, so the console can ask for the file check at once.
          await job.current;
        } catch (error) {
          if (error instanceof FirmwareFlowError) return failure(error.msg, undefined, status());
          const code = (error as { code?: string }).code;
          if (code === 'FST_REQ_FILE_TOO_LARGE') return failure(FIRMWARE_MSG.tooLarge, undefined, status());
          request.log.warn({ err: error }, 'firmware upload unreadable');
          return failure(FIRMWARE_MSG.uploadFailed, undefined, status());
        }
        request.log.info({ user: request.auth?.account.username, ip: request.ip, bytes: job.status().file?.size }, 'firmware file uploaded');
        return success(status());
      },
    );
  });

  return { slots, job };
}
