import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { fieldErrors, MSG } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { envelope, failure, success } from '../../plugins/api-envelope.js';
import { licensePublicKey, LICENSE_FILE_LIMIT } from './license-file.js';
import { LicenseFlowError, LicenseService } from './license-service.js';

export const REGISTRATION_URL = '/api/registration';

/** What a test replaces: the fetch towards the licence server. */
export interface LicenseDeps {
  fetch?: typeof fetch;
}

const licenseViewSchema = z
  .object({
    state: z.enum(['unlicensed', 'activating', 'activationFailed', 'activationSuccess', 'licensed', 'locked']),
    isRegister: z.boolean(),
    locked: z.boolean(),
    lockReason: z.enum(['server', 'otherDevice']).nullable(),
    sn: z.string(),
    mac: z.string(),
    is_x86: z.boolean(),
    license: z.object({ id: z.string(), edition: z.string(), issued: z.number(), expires: z.number().nullable() }).nullable(),
    fileProblem: z.string().nullable(),
    serverConfigured: z.boolean(),
    attempt: z
      .object({
        running: z.boolean(),
        startedAt: z.number(),
        elapsedSeconds: z.number().int(),
        error: z.object({ msg: z.string(), reason: z.string().nullable() }).nullable(),
      })
      .nullable(),
  })
  .meta({ id: 'LicenseView' });

const body = z.discriminatedUnion(
  'action',
  [
    z.object({ action: z.literal('get') }).strict(),
    z.object({ action: z.literal('update'), code: z.string({ error: 'validation.required' }).regex(/^[A-Za-z0-9-]{8,64}$/, { error: 'validation.invalid' }) }).strict(),
    z.object({ action: z.literal('import'), license: z.string({ error: 'validation.required' }).min(1, { error: 'validation.required' }).max(LICENSE_FILE_LIMIT, { error: 'validation.tooBig' }) }).strict(),
  ],
  { error: 'validation.option' },
);

function keyReader(file: string | undefined): () => KeyObject | null {
  return () => {
    if (!file || !existsSync(file)) return null;
    try {
      return licensePublicKey(readFileSync(file));
    } catch {
      return null;
    }
  };
}

/** System status → Licence: GET and POST registration (spec §7). */
export function registerLicenseRoutes(app: FastifyInstance, ctx: AppContext, deps: LicenseDeps = {}): LicenseService {
  const { settings, live } = ctx;
  const service = new LicenseService({
    dir: join(settings.stateDir, 'license'),
    now: ctx.now,
    key: keyReader(settings.licenseKeyFile),
    identity: () => {
      const { sn, mac, is_x86 } = live.registration();
      return { sn, mac, is_x86 };
    },
    url: settings.licenseUrl ?? '',
    fetch: deps.fetch,
    report: (error, what) => app.log.error({ err: error }, what),
  });

  app.get(
    REGISTRATION_URL,
    {
      // The licence state decides the warning the dashboard shows.
      config: { policy: { module: ['dashboard', 'license'], effect: 'read' } },
      schema: { response: { 200: envelope(licenseViewSchema) } },
    },
    async () => success(service.view()),
  );

  app.post(
    REGISTRATION_URL,
    {
      config: {
        policy: { module: 'license', effect: 'write', actionEffects: { get: 'read' } },
        doc: { summary: 'get: the licence state; update (code): activation against the licence server; import (license): an offline licence file', body },
      },
    },
    async (request) => {
      const raw = request.body && typeof request.body === 'object' ? { action: 'update', ...(request.body as Record<string, unknown>) } : { action: 'update' };
      delete (raw as Record<string, unknown>)._;
      const parsed = body.safeParse(raw);
      if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
      const input = parsed.data;
      try {
        if (input.action === 'update') service.activate(input.code);
        else if (input.action === 'import') service.import(input.license);
      } catch (error) {
        if (!(error instanceof LicenseFlowError)) throw error;
        return failure(error.msg, undefined, service.view());
      }
      if (input.action !== 'get') request.log.info({ user: request.auth?.account.username, ip: request.ip, action: input.action }, 'licence change');
      return success(service.view());
    },
  );
  return service;
}
