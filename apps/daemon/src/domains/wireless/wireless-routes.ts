import { createReadStream, statSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import fastifyMultipart from '@fastify/multipart';
import { z } from 'zod';
import {
  channelsFor,
  deviceCommandSchema,
  deviceSerialField,
  deviceListQuerySchema,
  fieldErrors,
  firmwareActionSchema,
  firmwareUploadFieldsSchema,
  getCountry,
  MSG,
  PLANNING_ACTIONS,
  stationListQuerySchema,
  type DeviceKind,
} from '@portico/schema';
import { failure, success } from '../../plugins/api-envelope.js';
import type { WirelessService } from './wireless-service.js';
import { checkDeviceCsr, DEVICE_CSR_MAX } from './controller/wireless-device-pki.js';
import { FIRMWARE_MAX_BYTES, FirmwareRefused } from './wireless-firmware.js';

/** Menu pages (ACL modules) of the wireless routes. */
export const WIRELESS_PAGES = ['wirelessstatus', 'aplist', 'wifiplaning', 'topology', 'firmware', 'stainfo', 'cpelist', 'cpetopology', 'cpeconfigure'] as const;

const PLANNING_MSG = { planningRunning: 'msg.planningRunning', noPlan: 'msg.planningNoPlan', saveFailed: 'msg.saveFailed' } as const;

const serialQuery = z.object({ serial: deviceSerialField() });
const deviceCertBody = serialQuery.extend({ csr: z.string().max(DEVICE_CSR_MAX, { error: 'validation.wireless.csr.format' }).optional() });
const kindQuery = z.object({ kind: z.enum(['ap', 'cpe'], { error: 'validation.option' }).default('ap') });
const planningBody = z.object({ action: z.enum(PLANNING_ACTIONS, { error: 'validation.option' }) });
const channelsBody = z.object({
  action: z.string().optional(),
  country: z.string().refine((code) => getCountry(code) !== undefined, { error: 'validation.wifi.country' }),
  band: z.enum(['2g', '5g'], { error: 'validation.option' }),
});

/**
 * The wireless controller's §7 paths: status, device lists and details, stations, commands,
 * channel planning, topology, and the channels a CPE profile may pick.
 */
export function registerWirelessRoutes(app: FastifyInstance, service: WirelessService): void {
  const read = (module: string | string[], summary: string) => ({ config: { policy: { module, effect: 'read' as const }, doc: { summary } } });
  const write = (module: string, summary: string) => ({ config: { policy: { module, effect: 'write' as const }, doc: { summary } } });

  app.get('/api/ac', read('wirelessstatus', 'Wireless status: devices, stations, channels'), async () => success(service.summary()));

  const list = (kind: DeviceKind, status?: 'pending') => async (request: { query: unknown }) => {
    const query = deviceListQuerySchema.safeParse({ ...(request.query as object), kind, ...(status ? { status } : {}) });
    if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
    return success(service.list(query.data));
  };
  app.get('/api/ac/aplist', read('aplist', 'Access points, paged'), list('ap'));
  app.get('/api/ac/apbind', read('aplist', 'Access points waiting for adoption, paged'), list('ap', 'pending'));
  app.get('/api/ac/cpelist', read('cpelist', 'CPEs, paged'), list('cpe'));

  const info = async (request: { query: unknown }) => {
    const query = serialQuery.safeParse(request.query);
    if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
    const detail = service.detail(query.data.serial);
    return detail ? success(detail) : failure(MSG.notFound);
  };
  app.get('/api/ac/apinfo', read('aplist', 'One access point with its configuration outcome'), info);
  app.get('/api/ac/cpeinfo', read('cpelist', 'One CPE with its configuration outcome'), info);

  const stations = (kind: DeviceKind, fresh: boolean) => async (request: { query: unknown }) => {
    const query = stationListQuerySchema.safeParse(request.query);
    if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
    const { serial, q, page, page_size } = query.data;
    // "Now": the device is asked for a fresh report first; its answer updates the list.
    if (fresh && serial) await service.controller.requestState(serial).catch(() => undefined);
    return success(service.stations(kind, serial, q, page, page_size));
  };
  app.get('/api/ac/stalist', read('stainfo', 'Stations of the access points'), stations('ap', false));
  app.get('/api/ac/stalistnow', read('stainfo', 'Stations of one access point, asked afresh'), stations('ap', true));
  app.get('/api/ac/cpestalist', read('cpelist', 'Stations of the CPEs'), stations('cpe', false));

  const command = (kind: DeviceKind) => async (request: { body: unknown }) => {
    const body = deviceCommandSchema.safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    return success(await service.command(kind, body.data));
  };
  app.post('/api/ac/apcmd', write('aplist', 'Adopt, bind, rename, reboot, locate, scan, revoke or forget access points'), command('ap'));
  app.post('/api/ac/cpecmd', write('cpelist', 'The same commands on CPEs'), command('cpe'));

  // The device certificate an AP's agent is installed with (key, certificate, device CA). The
  // key is made here and leaves once, in this answer; it is not kept. A device that makes its
  // own key sends a certificate request instead, and gets no key back.
  app.post('/api/ac/devicecert', write('aplist', 'Issue a device certificate (key, certificate, CA) for an AP or CPE serial, or sign its request'), async (request, reply) => {
    const body = deviceCertBody.safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    const { serial, csr } = body.data;
    if (csr) {
      const problem = await checkDeviceCsr(serial, csr);
      if (problem) return failure(MSG.invalid, { csr: `validation.wireless.csr.${problem}` });
    }
    try {
      const bundle = csr ? await service.signDeviceRequest(serial, csr) : await service.issueDeviceCertificate(serial);
      void reply.header('cache-control', 'no-store');
      return success(bundle);
    } catch (error) {
      request.log.warn({ err: error }, 'device certificate not issued');
      return failure(MSG.saveFailed);
    }
  });

  app.get('/api/ac/scanresult', read('wifiplaning', 'Channel planning: state, progress, plan'), async () => success(service.planningView()));
  app.post('/api/ac/startscan', write('wifiplaning', 'Channel planning: start, cancel or save'), async (request) => {
    const body = planningBody.safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    if (body.data.action === 'cancel') return success({ cancelled: service.planning.cancel() });
    const result = body.data.action === 'start' ? service.startPlanning() : await service.planning.save();
    return result.ok ? success(service.planningView()) : failure(PLANNING_MSG[result.code]);
  });

  app.get('/api/ac/topology', read(['topology', 'cpetopology'], 'Devices and their links'), async (request) => {
    const query = kindQuery.safeParse(request.query);
    if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
    return success(service.topology(query.data.kind));
  });

  app.post('/api/ac/cpechannels', write('cpeconfigure', 'Channels a CPE profile may use in a country and band'), async (request) => {
    const body = channelsBody.safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    return success({ channels: channelsFor(body.data.country, body.data.band) });
  });
}

/** Upload fields besides the file, as multipart carries them. */
const FIRMWARE_FILE_FIELD = 'file';
const firmwareLinkQuery = z.object({ serial: deviceSerialField(), expires: z.coerce.number().int(), token: z.string().max(64) });

/**
 * ac/firmware: signing keys, signed images per model, the staged rollout; the multipart
 * upload (fields model, version, signature, then the file) in a scope of its own; and the
 * image download devices follow, public but for the link's own signature and expiry.
 */
export async function registerFirmwareRoutes(app: FastifyInstance, service: WirelessService): Promise<void> {
  const refused = (error: unknown) => {
    if (error instanceof FirmwareRefused) return failure(`msg.firmware.${error.code}`);
    throw error;
  };
  app.get('/api/ac/firmware', { config: { policy: { module: 'firmware', effect: 'read' }, doc: { summary: 'Signing keys, firmware images and the rollout' } } }, async () =>
    success(service.firmwareView()),
  );
  app.post(
    '/api/ac/firmware',
    { config: { policy: { module: 'firmware', effect: 'write' }, doc: { summary: 'addkey, delkey, delete, rollout (waves: canary then percentages) or cancel' } } },
    async (request) => {
      const body = firmwareActionSchema.safeParse(request.body ?? {});
      if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
      try {
        switch (body.data.action) {
          case 'addkey':
            return success(service.firmware.addKey(body.data.name, body.data.pem));
          case 'delkey':
            return service.firmware.removeKey(body.data.id) ? success() : failure(MSG.notFound);
          case 'delete':
            return service.firmware.removeImage(body.data.id) ? success() : failure(MSG.notFound);
          case 'cancel':
            return success({ cancelled: service.cancelRollout() });
          case 'rollout': {
            const base = `${request.protocol}://${request.host}`;
            const result = service.startRollout(body.data.id, body.data.serials, { canary: body.data.canary, waves: body.data.waves, soakSeconds: body.data.soak, deadlineSeconds: body.data.deadline }, base, request.socket.localPort);
            return result.done.length ? success(result) : failure('msg.firmware.noTargets', undefined, result);
          }
        }
      } catch (error) {
        return refused(error);
      }
    },
  );

  await app.register(async (scope) => {
    await scope.register(fastifyMultipart, { limits: { fileSize: FIRMWARE_MAX_BYTES, files: 1, fields: 3, fieldSize: 1024 } });
    scope.post(
      '/api/ac/firmware/upload',
      { config: { policy: { module: 'firmware', effect: 'write' }, doc: { summary: 'multipart: model, version, signature (base64 Ed25519 over the SHA-256 of the image), then file' } } },
      async (request) => {
        if (!request.isMultipart()) return failure(MSG.invalid, { file: 'validation.required' });
        const fields: Record<string, string> = {};
        try {
          for await (const part of request.parts()) {
            if (part.type === 'field') fields[part.fieldname] = String(part.value);
            else if (part.fieldname !== FIRMWARE_FILE_FIELD) part.file.resume();
            else {
              const meta = firmwareUploadFieldsSchema.safeParse(fields);
              if (!meta.success) {
                part.file.resume();
                return failure(MSG.invalid, fieldErrors(meta.error));
              }
              const image = await service.firmware.addImage(meta.data, part.file);
              if (part.file.truncated) throw new FirmwareRefused('tooLarge');
              request.log.info({ user: request.auth?.account.username, model: image.model, version: image.version }, 'firmware image uploaded');
              return success(image);
            }
          }
          return failure(MSG.invalid, { file: 'validation.required' });
        } catch (error) {
          if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') return failure('msg.firmware.tooLarge');
          return refused(error);
        }
      },
    );
  });

  app.get('/api/ac/firmware/image/:sha256', { config: { public: true, doc: { summary: 'A device fetches an image through its signed, expiring link' } } }, async (request, reply) => {
    const { sha256 } = request.params as { sha256: string };
    const query = firmwareLinkQuery.safeParse(request.query);
    const path = query.success ? service.firmware.checkLink(sha256, query.data.serial, query.data.expires, query.data.token) : null;
    if (!path) return reply.code(403).send(failure(MSG.forbidden));
    return reply.type('application/octet-stream').header('content-length', statSync(path).size).send(createReadStream(path));
  });
}
