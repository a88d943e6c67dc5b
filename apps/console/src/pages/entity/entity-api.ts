import type { AnyEntity, ApiReply, ListPage, RowActionDef } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';
import { deleteBody, listQuery, type ListState } from './entity-list-query.js';
import { ruleHolds, type FormValues } from './entity-form-model.js';

/** The calls of the generic entity pages (DESIGN §3), all addressed by the entity's API path. */

export type EntityRecord = Record<string, unknown>;

export function fetchEntityPage(entity: AnyEntity, state: ListState): Promise<ListPage<EntityRecord>> {
  return apiGet<ListPage<EntityRecord>>(entity.path, { ...listQuery(state) });
}

/** A collection row by id (`action: get`); a singleton is its plain read. */
export async function fetchEntityRecord(entity: AnyEntity, id: string | null): Promise<EntityRecord | null> {
  if (entity.kind === 'singleton') return apiGet<EntityRecord>(entity.path);
  if (!id) return null;
  const reply = await apiPost<EntityRecord>(entity.path, { action: 'get', id });
  return reply.success && reply.data ? reply.data : null;
}

export function saveEntityRecord(
  entity: AnyEntity,
  mode: 'add' | 'edit',
  id: string | null,
  values: Record<string, unknown>,
): Promise<ApiReply<unknown>> {
  if (mode === 'add') return apiPost(entity.path, { ...values, action: 'add' });
  const body: Record<string, unknown> = { ...values, action: 'update' };
  if (entity.kind === 'collection' && id) body.id = id;
  return apiPost(entity.path, body);
}

export function deleteEntityRecords(
  entity: AnyEntity,
  target: { id: string } | { ids: readonly string[] },
): Promise<ApiReply<unknown>> {
  return apiPost(entity.path, deleteBody(target));
}

/** The row commands a record offers (its declaration's rules decide). */
export function rowActionsOf(entity: AnyEntity, record: EntityRecord): RowActionDef[] {
  return (entity.rowActions ?? []).filter((action) => !action.visibleWhen || ruleHolds(action.visibleWhen, record as FormValues));
}

export function postRowAction(action: RowActionDef, record: EntityRecord): Promise<ApiReply<unknown>> {
  return apiPost(action.path, { [action.param]: record[action.field] });
}
