import type { ApiReply, VoucherBatch, VoucherBatchCreated, VoucherRow, VoucherStatus } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';

/** The voucher calls (daemon domains/voucher): lists, batch creation and deletes. */

export function fetchVoucherBatches(): Promise<{ items: VoucherBatch[]; total: number }> {
  return apiGet('auth/voucherbatch');
}

export function fetchVouchers(filter: { batch?: string; status?: VoucherStatus }): Promise<{ items: VoucherRow[]; total: number }> {
  return apiGet('auth/voucher', { batch: filter.batch, status: filter.status });
}

export function createVoucherBatch(input: Record<string, unknown>): Promise<ApiReply<VoucherBatchCreated>> {
  return apiPost<VoucherBatchCreated>('auth/voucherbatch', { ...input, action: 'add' });
}

export function deleteVoucherBatches(ids: readonly string[]): Promise<ApiReply<unknown>> {
  return apiPost('auth/voucherbatch', { action: 'delete', ids: [...ids] });
}

export function deleteVouchers(ids: readonly string[]): Promise<ApiReply<unknown>> {
  return apiPost('auth/voucher', { action: 'delete', ids: [...ids] });
}
