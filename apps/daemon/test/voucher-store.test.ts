import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { VOUCHER_ALPHABET } from '@portico/schema';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { voucherStore } from '../src/domains/voucher/voucher-routes.js';
import { generateVoucherCode } from '../src/domains/voucher/voucher-codes.js';

let h: Harness;
let admin: Client;

beforeEach(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterEach(async () => {
  await h.close();
});

const batch = { action: 'add', name: 'lobby', codelength: 8, amount: 50, validity: 2, unit: 'hours', usernum: 2 };

async function createBatch(extra: Record<string, unknown> = {}) {
  const reply = json(await post(h.app, admin, '/api/auth/voucherbatch', { ...batch, ...extra }));
  expect(reply.success, JSON.stringify(reply)).toBe(true);
  return reply.data as { batch: { id: string; amount: number }; codes: string[] };
}

describe('voucher codes', () => {
  test('codes use the unambiguous alphabet at the asked length and are unique', async () => {
    const { codes, batch: created } = await createBatch({ amount: 1000, codelength: 6 });
    expect(created.amount).toBe(1000);
    expect(new Set(codes).size).toBe(1000);
    for (const code of codes) {
      expect(code).toHaveLength(6);
      expect([...code].every((c) => VOUCHER_ALPHABET.includes(c))).toBe(true);
    }
    expect(VOUCHER_ALPHABET).not.toMatch(/[01IO]/);
  });

  test('symbols are drawn uniformly (CSPRNG, no modulo bias): a chi-square check over 64 000 symbols', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 4000; i++) for (const c of generateVoucherCode(16)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(32);
    const expected = 64000 / 32;
    const chi = [...counts.values()].reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
    // 31 degrees of freedom: 61.1 is the 0.999 quantile.
    expect(chi).toBeLessThan(61.1);
  });

  test('the database holds only hashes: no plain code appears in the database files', async () => {
    const { codes } = await createBatch({ amount: 20 });
    h.app.appContext.db.pragma('wal_checkpoint(TRUNCATE)');
    const files = readdirSync(h.stateDir).filter((f) => f.startsWith('portico.db'));
    expect(files.length).toBeGreaterThan(0);
    const bytes = files.map((f) => readFileSync(join(h.stateDir, f)).toString('latin1')).join('');
    for (const code of codes) expect(bytes.includes(code)).toBe(false);
    const hashes = h.app.appContext.db.prepare('SELECT code_hash FROM vouchers').all() as Array<{ code_hash: string }>;
    expect(hashes).toHaveLength(20);
    for (const row of hashes) expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    // Lists never carry codes either.
    const listed = JSON.stringify(json(await get(h.app, admin, '/api/auth/voucher')));
    for (const code of codes) expect(listed).not.toContain(code);
  });
});

describe('voucher batches through the API', () => {
  test('field errors at the boundaries', async () => {
    const bad = json(await post(h.app, admin, '/api/auth/voucherbatch', { ...batch, codelength: 5, amount: 1001, unit: 'weeks' }));
    expect(bad.errors).toEqual({ codelength: 'validation.hotspot.codeLength', amount: 'validation.hotspot.amount', unit: 'validation.duration.unit' });
    const big = json(await post(h.app, admin, '/api/auth/voucherbatch', { ...batch, codelength: 17, amount: 0 }));
    expect(big.errors).toEqual({ codelength: 'validation.hotspot.codeLength', amount: 'validation.hotspot.amount' });
    const plan = json(await post(h.app, admin, '/api/auth/voucherbatch', { ...batch, plan: 'missing' }));
    expect(plan.errors).toEqual({ plan: 'validation.hotspot.unknownPlan' });
    expect(json(await post(h.app, admin, '/api/auth/voucherbatch', { ...batch, codelength: 16, amount: 1 })).success).toBe(true);
  });

  test('status goes unused -> in use -> expired; device slots are limited; delete works', async () => {
    const { codes, batch: created } = await createBatch({ amount: 3 });
    const store = voucherStore(h.app.appContext);
    const now = h.clock.now();
    expect(store.redeemVoucher('NOTACODE', '02:00:00:00:00:01', now)).toEqual({ ok: false, reason: 'code' });
    const first = store.redeemVoucher(codes[0]!.toLowerCase(), '02:00:00:00:00:01', now);
    expect(first).toMatchObject({ ok: true, secondsRemaining: 7200 });
    expect(store.redeemVoucher(codes[0]!, '02:00:00:00:00:01', now + 1000).ok).toBe(true);
    expect(store.redeemVoucher(codes[0]!, '02:00:00:00:00:02', now + 1000).ok).toBe(true);
    expect(store.redeemVoucher(codes[0]!, '02:00:00:00:00:03', now + 1000)).toEqual({ ok: false, reason: 'onlineLimit' });
    expect(store.voucherByCode(codes[0]!)?.status).toBe('inuse');
    let list = json(await get(h.app, admin, `/api/auth/voucher?batch=${created.id}`)).data.items as Array<{ id: string; status: string }>;
    expect(list.map((v) => v.status).sort()).toEqual(['inuse', 'unused', 'unused']);
    h.clock.advance(7201);
    expect(store.redeemVoucher(codes[0]!, '02:00:00:00:00:01', h.clock.now())).toEqual({ ok: false, reason: 'expired' });
    expect(store.voucherByCode(codes[0]!)?.status).toBe('expired');
    list = store.list().filter((v) => v.batch === created.id);
    expect(list.map((v) => v.status).sort()).toEqual(['expired', 'unused', 'unused']);
    expect(store.remove([list[0]!.id])).toBe(1);
    expect(store.batches()[0]!.amount).toBe(3);
    expect(store.removeBatches([created.id])).toBe(1);
    expect(store.list()).toHaveLength(0);
  });

  test('delete through the API and a plan used by a voucher batch stays', async () => {
    const plan = json(await post(h.app, admin, '/api/auth/tariff', { action: 'add', name: 'hour', effecttime: 1, effectunit: 'hours' })).data;
    const { batch: created } = await createBatch({ amount: 2, plan: 'hour' });
    expect(json(await post(h.app, admin, '/api/auth/tariff', { action: 'delete', id: plan.id })).msg).toBe('hotspot.msg.planInUse');
    const items = json(await get(h.app, admin, '/api/auth/voucher')).data.items as Array<{ id: string }>;
    expect(json(await post(h.app, admin, '/api/auth/voucher', { action: 'delete', ids: [items[0]!.id] })).data.removed).toBe(1);
    expect(json(await post(h.app, admin, '/api/auth/voucherbatch', { action: 'delete', id: created.id })).success).toBe(true);
    expect(json(await post(h.app, admin, '/api/auth/tariff', { action: 'delete', id: plan.id })).success).toBe(true);
  });
});
