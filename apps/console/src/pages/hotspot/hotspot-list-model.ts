import { z } from 'zod';
import { hotspotBlacklist, hotspotWhitelist, type AnyEntity, type FormFieldDef, type ListEntryType } from '@portico/schema';
import type { QueryParams } from '../../api/api-client.js';
import { listQuery, type ListState } from '../entity/entity-list-query.js';
import { HOTSPOT_LIST_ROUTES, LIST_TYPE_SEGMENTS } from './hotspot-list-routes.js';

/**
 * What a white/black list address shows: which list, and whether it is narrowed to one entry
 * type (`/hotspot/whitelistconfig/macedit`). Pure, so it is tested without a browser.
 */

export const HOTSPOT_LIST_ENTITIES: readonly AnyEntity[] = [hotspotWhitelist, hotspotBlacklist] as unknown as AnyEntity[];

/** The field a typed sub-route fixes. */
export const LIST_TYPE_FIELD = 'type';

export interface HotspotListView {
  entity: AnyEntity;
  /** The list's own route, e.g. `/hotspot/whitelistconfig`. */
  listRoute: string;
  /** The entry type of a typed sub-route; null on the list of every type. */
  type: ListEntryType | null;
}

/** The view of a console path, or null when it is not a white/black list address. */
export function hotspotListView(pathname: string): HotspotListView | null {
  const clean = pathname.replace(/\/+$/, '');
  for (const listRoute of HOTSPOT_LIST_ROUTES) {
    const entity = HOTSPOT_LIST_ENTITIES.find((e) => e.route === listRoute);
    if (!entity) continue;
    if (clean === listRoute) return { entity, listRoute, type: null };
    const typed = LIST_TYPE_SEGMENTS.find((s) => clean === `${listRoute}/${s.segment}`);
    if (typed) return { entity, listRoute, type: typed.type };
  }
  return null;
}

/** The sub-route that shows and edits the entries of one type. */
export function typedRouteOf(listRoute: string, type: ListEntryType): string {
  const typed = LIST_TYPE_SEGMENTS.find((s) => s.type === type);
  return typed ? `${listRoute}/${typed.segment}` : listRoute;
}

/** Entries are added and edited on their type's sub-route: `?add=1`, `?id=<id>`. */
export function addAddressOf(listRoute: string, type: ListEntryType): string {
  return `${typedRouteOf(listRoute, type)}?${new URLSearchParams({ add: '1' }).toString()}`;
}

export function editAddressOf(listRoute: string, type: ListEntryType, id: string): string {
  return `${typedRouteOf(listRoute, type)}?${new URLSearchParams({ id }).toString()}`;
}

export type FormTarget = { mode: 'add' } | { mode: 'edit'; id: string };

/** Whether a typed sub-route shows its form, and for which entry. */
export function formTargetOf(params: URLSearchParams): FormTarget | null {
  const id = params.get('id');
  if (id) return { mode: 'edit', id };
  if (params.get('add') === '1') return { mode: 'add' };
  return null;
}

/** Query of the list read: paging, sort and search, and the exact type filter of a sub-route. */
export function listParams(state: ListState, type: ListEntryType | null): QueryParams {
  const params: QueryParams = { ...listQuery(state) };
  if (type) params[LIST_TYPE_FIELD] = type;
  return params;
}

/** Columns a view shows: a typed view leaves out the type, which is the same on every row. */
export function viewColumns(view: HotspotListView): string[] {
  const fields = (view.entity.list?.columns ?? []).map((c) => c.field);
  return view.type ? fields.filter((f) => f !== LIST_TYPE_FIELD) : fields;
}

function lockFieldDef(def: FormFieldDef, value: string): FormFieldDef {
  return { ...def, widget: 'select', options: [value] };
}

/**
 * The entity as a form with one field fixed to a value: the field offers that value only and
 * the schema accepts nothing else, so the generic form both shows and checks it. The list
 * route is dropped so the form goes back to the address it was opened from.
 */
export function lockField(entity: AnyEntity, field: string, value: string): AnyEntity {
  const { route: _listRoute, ...rest } = entity;
  const schema = entity.schema.extend({ [field]: z.literal(value, { error: 'validation.option' }).default(value) });
  const locked: AnyEntity = { ...rest, schema };
  if (entity.form) {
    locked.form = {
      tabs: entity.form.tabs.map((tab) => ({ ...tab, fields: tab.fields.map((def) => (def.name === field ? lockFieldDef(def, value) : def)) })),
    };
  }
  return locked;
}

const lockedEntities = new Map<string, AnyEntity>();

/** The entity of a typed sub-route's form; one object per list and type so pages keep it. */
export function typedEntity(entity: AnyEntity, type: ListEntryType): AnyEntity {
  const key = `${entity.name}:${type}`;
  let locked = lockedEntities.get(key);
  if (!locked) {
    locked = lockField(entity, LIST_TYPE_FIELD, type);
    lockedEntities.set(key, locked);
  }
  return locked;
}
