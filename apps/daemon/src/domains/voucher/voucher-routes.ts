import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { fieldErrors, MSG, voucherBatchInput, VOUCHER_STATUSES, checkVoucherBatch, type HotspotPlan } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { loadVoucherKey } from './voucher-codes.js';
import { VoucherStore } from './voucher-store.js';

const stores = new WeakMap<object, VoucherStore>();

/**
 * The device's voucher store (one per database). The portal engine calls
 * `voucherStore(ctx).redeemVoucher(code, clientMac, now)` to sign a device in and
 * `voucherStore(ctx).voucherByCode(code)` to look a code up; both are synchronous.
 */
export function voucherStore(ctx: Pick<AppContext, 'db' | 'settings' | 'now'>): VoucherStore {
  let store = stores.get(ctx.db);
  if (!store) {
    store = new VoucherStore(ctx.db, loadVoucherKey(ctx.settings.stateDir), ctx.now);
    stores.set(ctx.db, store);
  }
  return store;
}

const idsSchema = z.array(z.string().min(1).max(128)).min(1).max(10_000);

const listQuery = z.object({
  batch: z.string().max(128).optional(),
  status: z.enum(VOUCHER_STATUSES).optional(),
  page: z.coerce.number().int().min(1).optional(),
  pageSize: z.coerce.number().int().min(1).max(1000).optional(),
});

function paged<T>(rows: T[], page: number | undefined, pageSize: number | undefined): { items: T[]; total: number } {
  if (page === undefined && pageSize === undefined) return { items: rows, total: rows.length };
  const size = pageSize ?? 20;
  const start = ((page ?? 1) - 1) * size;
  return { items: rows.slice(start, start + size), total: rows.length };
}

function plansOf(ctx: AppContext): HotspotPlan[] {
  const rows = ctx.db.prepare("SELECT id, data FROM config_rows WHERE entity = 'hotspotPlan'").all() as Array<{ id: string; data: string }>;
  return rows.map((r) => ({ ...(JSON.parse(r.data) as HotspotPlan), id: r.id }));
}

/**
 * /api/auth/voucher (list with status, delete) and /api/auth/voucherbatch (list, add,
 * delete). Vouchers are data, like sessions, not configuration: they are not journalled.
 * The reply of `add` is the only place the codes ever appear.
 */
export function registerVoucherRoutes(app: FastifyInstance, ctx: AppContext): void {
  const store = () => voucherStore(ctx);

  app.get('/api/auth/voucher', { config: { policy: { module: 'voucher', effect: 'read' }, doc: { summary: 'Vouchers with their status' } } }, async (request) => {
    const query = listQuery.safeParse(request.query);
    if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
    const rows = store()
      .list()
      .filter((row) => (query.data.batch === undefined || row.batch === query.data.batch) && (query.data.status === undefined || row.status === query.data.status));
    return success(paged(rows, query.data.page, query.data.pageSize));
  });

  app.post(
    '/api/auth/voucher',
    { config: { policy: { module: 'voucher', effect: 'write' }, doc: { summary: 'action=delete with ids' } } },
    async (request) => {
      const body = (request.body ?? {}) as { action?: unknown; ids?: unknown; id?: unknown };
      if (body.action !== 'delete') return failure(MSG.invalid, { action: 'validation.option' });
      const ids = idsSchema.safeParse(body.ids ?? (body.id === undefined ? undefined : [body.id]));
      if (!ids.success) return failure(MSG.invalid, { id: 'validation.required' });
      const removed = store().remove(ids.data);
      return removed === 0 ? failure(MSG.notFound) : success({ removed });
    },
  );

  app.get('/api/auth/voucherbatch', { config: { policy: { module: 'voucherbatch', effect: 'read' }, doc: { summary: 'Voucher batches' } } }, async () => {
    const items = store().batches();
    return success({ items, total: items.length });
  });

  app.post(
    '/api/auth/voucherbatch',
    { config: { policy: { module: 'voucherbatch', effect: 'write' }, doc: { summary: 'action=add creates a batch and returns its codes once; action=delete with ids' } } },
    async (request) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const { action, ...rest } = body;
      if (action === 'delete') {
        const ids = idsSchema.safeParse(rest.ids ?? (rest.id === undefined ? undefined : [rest.id]));
        if (!ids.success) return failure(MSG.invalid, { id: 'validation.required' });
        const removed = store().removeBatches(ids.data);
        return removed === 0 ? failure(MSG.notFound) : success({ removed });
      }
      if (action !== 'add') return failure(MSG.invalid, { action: 'validation.option' });
      const parsed = voucherBatchInput.safeParse(rest);
      if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
      const refused = checkVoucherBatch(parsed.data, { hotspotPlan: plansOf(ctx) });
      if (refused) return typeof refused === 'string' ? failure(refused) : failure(MSG.invalid, refused);
      const created = store().createBatch(parsed.data);
      request.log.info({ user: request.auth?.account.username, batch: created.batch.id, amount: created.codes.length }, 'voucher batch created');
      return success(created);
    },
  );
}
