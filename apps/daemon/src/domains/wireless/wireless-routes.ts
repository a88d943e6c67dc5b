import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  channelsFor,
  deviceCommandSchema,
  deviceListQuerySchema,
  fieldErrors,
  getCountry,
  MSG,
  PLANNING_ACTIONS,
  stationListQuerySchema,
  type DeviceKind,
} from '@portico/schema';
import { failure, success } from '../../plugins/api-envelope.js';
import type { WirelessService } from './wireless-service.js';

/** Menu pages (ACL modules) of the wireless routes. */
export const WIRELESS_PAGES = ['wirelessstatus', 'aplist', 'wifiplaning', 'topology', 'stainfo', 'cpelist', 'cpetopology', 'cpeconfigure'] as const;

const PLANNING_MSG = { planningRunning: 'msg.planningRunning', noPlan: 'msg.planningNoPlan', saveFailed: 'msg.saveFailed' } as const;

const serialQuery = z.object({ serial: z.string().regex(/^[0-9a-f]{12}$/, { error: 'validation.wireless.serial' }) });
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
