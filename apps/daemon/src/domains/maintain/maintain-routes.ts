import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyMultipart from '@fastify/multipart';
import { z } from 'zod';
import { fieldErrors, MSG, type RevisionSummary } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { envelope, failure, success } from '../../plugins/api-envelope.js';
import { MIGRATIONS } from '../../plugins/db-open.js';
import type { RoutePolicy } from '../../plugins/route-policy.js';
import { actorOf } from '../../config/config-write.js';
import { factoryPortsOf, factorySnapshot } from '../../config/factory-defaults.js';
import { realScheduler, type Actor, type ConfigSnapshot, type Scheduler } from '../../config/config-types.js';
import { runCommand, type CommandRunner } from '../../engine/command-runner.js';
import type { BackupOutsideStep } from '../../config/backup-part.js';
import {
  ARCHIVE_LIMITS,
  assertPartNames,
  BACKUP_MSG,
  BackupRefused,
  buildArchive,
  openArchive,
  readArchive,
  readManifest,
  type BackupManifest,
  type BackupProtection,
} from './maintain-archive.js';
import { deviceKeys, deviceSecret, PASSPHRASE_KDF, passphraseKeys, type ArchiveKeys } from './maintain-keys.js';
import { validateSnapshot } from './maintain-restore.js';
import { captureParts, emptyParts, validateParts, writeParts, type PartWrite } from './maintain-parts.js';
import { createRebooter, RestartState } from './maintain-reboot.js';
import { registerFirmwareRoutes, type FirmwareDeps } from './maintain-firmware-routes.js';
import type { SlotDevice } from './maintain-firmware-slots.js';

export const BACKUP_URL = '/api/sysconf/backup';
export const REBOOT_URL = '/api/sysconf/reboot';

/** Name of the multipart file field of a configuration upload. */
export const BACKUP_FILE_FIELD = 'backup';

export const MAINTAIN_MSG = {
  uploadFailed: 'msg.uploadFailed',
  rebooting: 'msg.rebooting',
} as const;

/** What a test replaces: the command runner (never reboot the machine), the timer, the simulated restart's length. */
export interface MaintainDeps {
  run?: CommandRunner;
  schedule?: Scheduler;
  simRestartSeconds?: number;
  firmware?: FirmwareDeps;
}

const passphraseField = z
  .string({ error: 'validation.required' })
  .min(8, { error: 'validation.tooSmall' })
  .max(128, { error: 'validation.tooBig' });

/** `1` as the console sends it (number) or as a form does (string). */
const flagOne = z.union([z.literal(1), z.literal('1')], { error: 'validation.option' });

const backupBody = z.discriminatedUnion(
  'action',
  [
    // An empty passphrase means the device key.
    z.object({ action: z.literal('download'), passphrase: z.union([z.literal(''), passphraseField]).optional() }).strict(),
    z.object({ action: z.literal('update'), reset: flagOne }).strict(),
  ],
  { error: 'validation.option' },
);

const rebootBody = z.object({ action: z.literal('update').default('update'), reboot: flagOne }).strict();

const restartInfo = z.object({ restarting: z.boolean(), elapsedSeconds: z.number().int(), expectedSeconds: z.number().int() });
const backupStatus = z.object({
  /** A restored configuration or factory reset is stored but waits for a restart. */
  rebootRequired: z.boolean(),
  revision: z.number().int().nullable(),
  reason: z.enum(['restore', 'reset']).nullable(),
  uploadLimit: z.number().int(),
  restart: restartInfo,
});

function isApi(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
}

/** The contract's default action: a write without one is an update. */
function withDefaultAction(body: unknown): unknown {
  if (!body || typeof body !== 'object') return body;
  const out = { ...(body as Record<string, unknown>) };
  out.action ??= 'update';
  return out;
}

/**
 * System → Maintenance, beyond the journal: configuration backup (download), restore (upload),
 * factory reset (`reset=1`) and reboot (`reboot=1`), spec §2, §4, §7.
 *
 * A restored configuration and the factory defaults are written as one journalled revision
 * (so they can be reverted) but only applied by the restart that follows: the console asks
 * whether to reboot now, as the spec's config upload does, and a factory reset reboots at once.
 * Uploads are read by @fastify/multipart in this scope only, with the size limit enforced
 * while the file streams in.
 */
export async function registerMaintainRoutes(app: FastifyInstance, ctx: AppContext, deps: MaintainDeps = {}): Promise<void> {
  const { config, settings } = ctx;
  assertPartNames(ctx.backupParts);
  const restart = new RestartState(ctx.now);
  /** The revision a restore or reset stored, waiting for the restart that applies it. */
  let awaitingRestart: { revision: number | null; reason: 'restore' | 'reset' } | null = null;
  /** The firmware slots, registered below; a simulated restart boots them. */
  let slots: SlotDevice | undefined;
  const rebooter = createRebooter({
    driver: settings.driver,
    state: restart,
    run: deps.run ?? runCommand,
    schedule: deps.schedule ?? realScheduler,
    simSeconds: deps.simRestartSeconds,
    // What a start does: boot a slot, record the configuration, honour a pending confirmation,
    // apply all; coming up with it is a good boot.
    restartServices: async () => {
      slots?.boot();
      await config.resume();
      awaitingRestart = null;
      slots?.confirm();
    },
    report: (error, what) => app.log.error({ err: error }, what),
  });

  const read: RoutePolicy = { module: 'systemmaintain', effect: 'read' };
  // A backup carries the secrets (sealed), so downloading it is a command, not a read.
  const backupPolicy: RoutePolicy = { module: 'systemmaintain', effect: 'write', actionEffects: { download: 'action' } };
  const rebootPolicy: RoutePolicy = { module: 'systemmaintain', effect: 'action' };

  // A device going down answers nothing but "restarting": no write may land meanwhile.
  app.addHook('onRequest', async (request, reply) => {
    if (!restart.active || !isApi(request.url)) return;
    return reply.code(503).header('retry-after', '2').send(failure(MAINTAIN_MSG.rebooting));
  });

  const restartStatus = () => ({ restarting: restart.active, elapsedSeconds: restart.elapsedSeconds(), expectedSeconds: rebooter.expectedSeconds });

  function startReboot(request: FastifyRequest, why: string) {
    request.log.info({ user: request.auth?.account.username, ip: request.ip }, why);
    rebooter.reboot();
    return restartStatus();
  }

  async function keysFor(manifest: BackupManifest, passphrase: string | undefined): Promise<ArchiveKeys> {
    const salt = Buffer.from(manifest.protection.salt, 'base64');
    if (manifest.protection.mode === 'device') return deviceKeys(deviceSecret(settings.stateDir), salt);
    if (!passphrase) throw new BackupRefused(BACKUP_MSG.passphraseRequired, 'the backup is sealed with a passphrase');
    return passphraseKeys(passphrase, salt);
  }

  /**
   * Stores `target` as the configuration for the next start and, in the same transaction,
   * writes the domains' parts (`parts`: the archive's, or every part emptied by a factory
   * reset; a part left out keeps its tables). Those tables are live at once, not at the
   * restart. What a part changes outside the database (a key file) is installed as the
   * transaction's last step and undone if it fails, so any failure leaves everything as it was.
   */
  function replaceForRestart(target: ConfigSnapshot, parts: readonly PartWrite[], actor: Actor, summary: RevisionSummary) {
    const steps: BackupOutsideStep[] = [];
    const undo = () => steps.reverse().forEach((step) => step.undo());
    let outcome: ReturnType<typeof config.replaceForRestart>;
    try {
      outcome = ctx.db.transaction(() => {
        const replaced = config.replaceForRestart(target, actor, summary);
        // Refused: its own writes are rolled back, and nothing else is written.
        if (replaced.ok) writeParts(ctx, parts, steps);
        return replaced;
      })();
    } catch (error) {
      undo();
      throw error;
    }
    if (!outcome.ok) undo();
    else for (const step of steps) step.done();
    return outcome;
  }

  async function download(request: FastifyRequest, reply: FastifyReply, passphrase: string | undefined) {
    const salt = randomBytes(16);
    const protection: BackupProtection = passphrase
      ? { mode: 'passphrase', salt: salt.toString('base64'), kdf: { ...PASSPHRASE_KDF } }
      : { mode: 'device', salt: salt.toString('base64') };
    const keys = passphrase ? await passphraseKeys(passphrase, salt) : deviceKeys(deviceSecret(settings.stateDir), salt);
    const created = new Date(ctx.now());
    const archive = await buildArchive({
      snapshot: config.journal.capture(),
      parts: captureParts(ctx),
      lookup: config.lookup,
      keys,
      protection,
      schemaVersion: MIGRATIONS.length,
      created,
    });
    request.log.info({ user: request.auth?.account.username, ip: request.ip, mode: protection.mode }, 'configuration backup downloaded');
    const stamp = created.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
    return reply
      .header('content-type', 'application/gzip')
      .header('content-disposition', `attachment; filename="portico-config-${stamp}.tar.gz"`)
      .send(archive);
  }

  async function readUpload(request: FastifyRequest): Promise<{ file: Buffer; passphrase?: string }> {
    let file: Buffer | undefined;
    let passphrase: string | undefined;
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== BACKUP_FILE_FIELD || file) throw new BackupRefused(MAINTAIN_MSG.uploadFailed, `unexpected file field ${part.fieldname}`);
          // Throws once the limit is passed: the rest of the upload is never buffered.
          file = await part.toBuffer();
        } else if (part.fieldname === 'passphrase' && typeof part.value === 'string') {
          passphrase = part.value === '' ? undefined : part.value;
        } else {
          throw new BackupRefused(MAINTAIN_MSG.uploadFailed, `unexpected field ${part.fieldname}`);
        }
      }
    } catch (error) {
      if (error instanceof BackupRefused) throw error;
      const code = (error as { code?: string }).code;
      if (code === 'FST_REQ_FILE_TOO_LARGE') throw new BackupRefused(BACKUP_MSG.tooLarge, 'upload over the limit');
      throw new BackupRefused(MAINTAIN_MSG.uploadFailed, `upload unreadable: ${(error as Error).message}`);
    }
    if (!file || file.length === 0) throw new BackupRefused(MAINTAIN_MSG.uploadFailed, 'no file');
    return { file, passphrase };
  }

  async function restore(request: FastifyRequest) {
    try {
      const upload = await readUpload(request);
      if (upload.passphrase !== undefined && !passphraseField.safeParse(upload.passphrase).success) {
        return failure(MSG.invalid, { passphrase: 'validation.invalid' });
      }
      const files = await readArchive(upload.file, ctx.backupParts);
      const manifest = readManifest(files, MIGRATIONS.length, ctx.backupParts);
      const opened = openArchive(files, manifest, await keysFor(manifest, upload.passphrase), ctx.backupParts);
      const valid = validateSnapshot(opened.snapshot, config.lookup);
      const parts = validateParts(ctx, opened.parts, valid);
      const outcome = replaceForRestart(valid, parts, actorOf(request), { key: 'backupRestored', created: manifest.created });
      if (!outcome.ok) return outcome.reply;
      awaitingRestart = { revision: outcome.revision, reason: 'restore' };
      request.log.info({ user: request.auth?.account.username, ip: request.ip, revision: outcome.revision }, 'configuration restored from a backup');
      return success({ revision: outcome.revision, rebootRequired: true, created: manifest.created, ...restartStatus() });
    } catch (error) {
      if (!(error instanceof BackupRefused)) throw error;
      request.log.warn({ user: request.auth?.account.username, ip: request.ip, reason: error.reason }, 'configuration upload refused');
      return failure(error.msg, undefined, error.data);
    }
  }

  app.get(
    BACKUP_URL,
    {
      config: { policy: read, doc: { summary: 'Whether a restored configuration waits for a restart, and the upload limit' } },
      schema: { response: { 200: envelope(backupStatus) } },
    },
    async () =>
      success({
        rebootRequired: awaitingRestart !== null,
        revision: awaitingRestart?.revision ?? null,
        reason: awaitingRestart?.reason ?? null,
        uploadLimit: ARCHIVE_LIMITS.upload,
        restart: restartStatus(),
      }),
  );

  await app.register(async (scope) => {
    // Multipart bodies are accepted here only: elsewhere a cross-site form stays refused.
    await scope.register(fastifyMultipart, {
      limits: { fileSize: ARCHIVE_LIMITS.upload, files: 1, fields: 2, fieldSize: 1024, parts: 3, headerPairs: 50 },
    });
    scope.post(
      BACKUP_URL,
      {
        config: {
          policy: backupPolicy,
          doc: {
            summary:
              'download: the configuration backup (tar.gz; secrets sealed with the device key or the passphrase); reset=1: factory defaults, then reboot; multipart upload (file "backup", optional "passphrase"): restore, applied at the next reboot',
            body: backupBody,
            response: envelope(z.object({ revision: z.number().int().nullable(), rebootRequired: z.boolean().optional() }).extend(restartInfo.shape)),
          },
        },
      },
      async (request, reply) => {
        if (request.isMultipart()) return restore(request);
        const parsed = backupBody.safeParse(withDefaultAction(request.body ?? {}));
        if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
        const body = parsed.data;
        if (body.action === 'download') return download(request, reply, body.passphrase || undefined);
        const outcome = replaceForRestart(factorySnapshot(factoryPortsOf(settings)), emptyParts(ctx), actorOf(request), { key: 'factoryReset' });
        if (!outcome.ok) return outcome.reply;
        awaitingRestart = { revision: outcome.revision, reason: 'reset' };
        return success({ revision: outcome.revision, ...startReboot(request, 'factory reset: rebooting') });
      },
    );
  });

  const factoryReset = (actor: Actor) => {
    const outcome = replaceForRestart(factorySnapshot(factoryPortsOf(settings)), emptyParts(ctx), actor, { key: 'factoryReset' });
    if (!outcome.ok) throw new Error('the factory settings were refused');
    awaitingRestart = { revision: outcome.revision, reason: 'reset' };
  };
  ({ slots } = await registerFirmwareRoutes(
    app,
    ctx,
    {
      resetForRestart: factoryReset,
      restartSeconds: rebooter.expectedSeconds,
      reboot: (why) => {
        app.log.info(why);
        rebooter.reboot();
      },
    },
    deps.firmware,
  ));

  app.get(
    REBOOT_URL,
    {
      config: { policy: read, doc: { summary: 'Whether a restart is under way' } },
      schema: { response: { 200: envelope(restartInfo) } },
    },
    async () => success(restartStatus()),
  );

  app.post(
    REBOOT_URL,
    {
      config: { policy: rebootPolicy, doc: { summary: 'reboot=1: restart the device' } },
      schema: { body: rebootBody, response: { 200: envelope(restartInfo) } },
    },
    async (request) => success(startReboot(request, 'reboot requested')),
  );
}
