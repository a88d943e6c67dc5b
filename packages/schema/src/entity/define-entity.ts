import { z } from 'zod';

/**
 * One declaration per entity (DESIGN §2). The daemon derives its routes and validation from
 * it, the console its list and add/edit pages, the OpenAPI document its paths, and the i18n
 * checks their keys (`<name>.field.<field>`, `<name>.help.<field>`, `<name>.title`).
 */

/** How a form shows a field; inferred from the zod type unless the declaration says so. */
export type FieldWidget =
  | 'text'
  | 'password'
  | 'number'
  | 'switch'
  | 'select'
  /** A choice of several; used for list fields that name other entities' rows. */
  | 'multiselect'
  | 'tags'
  | 'textarea'
  /** A textarea over a list of single-line strings, one element per line. */
  | 'lines';

/** A visibility rule is data, so the server, the form and tests read the same rule. */
export type VisibleWhen =
  | { field: string; equals: string | number | boolean }
  | { field: string; in: ReadonlyArray<string | number | boolean> };

/**
 * Rows of another entity a field names (an interface, a billing plan): the form offers the
 * existing rows as choices instead of free text. Several sources are merged in order (the
 * interface namespace holds interfaces and VLANs); `where` keeps only the rows it holds for.
 */
export interface EntityRefSource {
  /** Entity name, e.g. `networkInterface`. */
  entity: string;
  /** Field of the referenced row that is stored. */
  value: string;
  /** Field shown for the row; the value itself when absent. */
  label?: string;
  where?: VisibleWhen;
}

export type EntityRef = ReadonlyArray<EntityRefSource>;

export interface FormFieldDef {
  name: string;
  /** The field names rows of other entities: a choice among them (several for a list field). */
  ref?: EntityRef;
  widget?: FieldWidget;
  /** For select widgets: the allowed values; labels are `<entity>.option.<field>.<value>`. */
  options?: ReadonlyArray<string | number>;
  visibleWhen?: VisibleWhen;
  /** Shown on add only (identity fields that are fixed once created). */
  addOnly?: boolean;
  /** On edit an empty value keeps the stored one (passwords). */
  keepWhenEmpty?: boolean;
}

/**
 * A command on one row of a list, beside edit and delete (e.g. reconnect a WAN): the console
 * posts `{ [param]: row[field] }` to `/api/<path>`. Its label is `<entity>.action.<key>` and
 * its success notice `<entity>.action.<key>Done`.
 */
export interface RowActionDef {
  key: string;
  path: string;
  param: string;
  field: string;
  /** Shown only on rows the rule holds for. */
  visibleWhen?: VisibleWhen;
}

export interface FormTabDef {
  key: string;
  fields: ReadonlyArray<FormFieldDef>;
}

export type ColumnFormat = 'text' | 'bool' | 'enabled' | 'tags' | 'option' | 'bytes' | 'datetime';

export interface ListColumnDef {
  field: string;
  format?: ColumnFormat;
  sortable?: boolean;
}

export interface EntityDef<S extends z.ZodObject = z.ZodObject> {
  /** i18n namespace and registry key, camelCase. */
  name: string;
  /** API path under /api, e.g. `admin`. */
  path: string;
  /** Page module this entity belongs to: ACL and menu key. */
  module: string;
  /** Console route of its list page, e.g. `/system/usermanagement`. */
  route?: string;
  kind: 'collection' | 'singleton';
  /** Stored and written fields. `id` is assigned by the server for collections. */
  schema: S;
  /** Fields accepted on writes and never returned by reads. */
  writeOnly?: ReadonlyArray<keyof z.infer<S> & string>;
  /** Cross-field rules; issues carry a `path` so errors land on the right field. */
  refine?: (value: z.infer<S>, ctx: RefineContext, mode: 'add' | 'update') => void;
  list?: { columns: ReadonlyArray<ListColumnDef>; defaultSort?: string };
  form?: { tabs: ReadonlyArray<FormTabDef> };
  rowActions?: ReadonlyArray<RowActionDef>;
  /**
   * Where the add and edit forms live below `route` (spec §2 sub-routes): `<prefix>add` and
   * `<prefix>edit` (prefix '' by default), or one pair per option of `byField` (`pptpadd`,
   * `pptpedit`…), whose form is then fixed to that option. A form without its sub-route in
   * the menu opens over the list instead.
   */
  formRoutes?: { prefix: string } | { byField: string };
  /** Buttons above the list leading to related pages (a singleton of settings); label `<entity>.link.<key>`. */
  links?: ReadonlyArray<{ key: string; route: string }>;
  /** A write can cut the administrator off: applied with a confirmation deadline. */
  cutsAccess?: boolean;
  /** Upper bound on rows, enforced on add. */
  maxRows?: number;
}

export interface RefineContext {
  /** Report a field error: `message` is an i18n key. */
  addIssue(field: string, message: string): void;
}

export type AnyEntity = EntityDef<z.ZodObject>;

export function defineEntity<S extends z.ZodObject>(def: EntityDef<S>): EntityDef<S> {
  if (!/^[a-z][A-Za-z0-9]*$/.test(def.name)) throw new Error(`entity name ${def.name} is not camelCase`);
  if (def.kind === 'collection' && !('id' in def.schema.shape)) {
    throw new Error(`collection entity ${def.name} needs an id field`);
  }
  return def;
}

/** One form sub-route of an entity: its segment below the list route, mode, and fixed field. */
export interface EntityFormRoute {
  segment: string;
  mode: 'add' | 'edit';
  /** The field the form is fixed to (byField entities), e.g. `{ field: 'type', value: 'pptp' }`. */
  preset?: { field: string; value: string };
}

/** The add/edit sub-route segments an entity's forms use, whether or not the menu routes them. */
export function entityFormRoutes(entity: AnyEntity): EntityFormRoute[] {
  const routes = entity.formRoutes ?? { prefix: '' };
  if ('prefix' in routes) {
    return (['add', 'edit'] as const).map((mode) => ({ segment: `${routes.prefix}${mode}`, mode }));
  }
  const field = routes.byField;
  return formFieldOptions(entity, field).flatMap((value) =>
    (['add', 'edit'] as const).map((mode) => ({ segment: `${value}${mode}`, mode, preset: { field, value } })),
  );
}

/** The choices of a select field: declared on the form, else the schema's enum. */
function formFieldOptions(entity: AnyEntity, name: string): string[] {
  const declared = (entity.form?.tabs ?? []).flatMap((t) => t.fields).find((f) => f.name === name)?.options;
  if (declared) return declared.map(String);
  const schema = entity.schema.shape[name] as { options?: readonly unknown[] } | undefined;
  return (schema?.options ?? []).map(String);
}

/** Every form field of an entity that names rows of other entities. */
export function refFields(entity: AnyEntity): Array<FormFieldDef & { ref: EntityRef }> {
  return (entity.form?.tabs ?? []).flatMap((t) => t.fields).filter((f): f is FormFieldDef & { ref: EntityRef } => f.ref !== undefined);
}

/** The field names an entity's form shows, in form order. */
export function formFieldNames(entity: AnyEntity): string[] {
  return (entity.form?.tabs ?? []).flatMap((tab) => tab.fields.map((f) => f.name));
}

/** Strips writeOnly fields from a stored record before it leaves the daemon. */
export function publicRecord<T extends Record<string, unknown>>(entity: AnyEntity, record: T): Partial<T> {
  const out: Record<string, unknown> = { ...record };
  for (const field of entity.writeOnly ?? []) delete out[field];
  return out as Partial<T>;
}

/** The record as readers see it: writeOnly fields removed. */
export function publicSchema(entity: AnyEntity): z.ZodObject {
  const hidden = Object.fromEntries((entity.writeOnly ?? []).map((f) => [f, true]));
  return Object.keys(hidden).length ? entity.schema.omit(hidden as never) : entity.schema;
}

/**
 * The schema a write is validated with. On `add` the server assigns `id`; on `update` the
 * record is merged with the stored one first, and fields marked keepWhenEmpty may be empty.
 */
export function writeSchema(entity: AnyEntity, mode: 'add' | 'update'): z.ZodType {
  let base: z.ZodObject = entity.schema;
  if (entity.kind === 'collection' && mode === 'add') base = base.omit({ id: true } as never);
  const keepers = (entity.form?.tabs ?? [])
    .flatMap((t) => t.fields)
    .filter((f) => f.keepWhenEmpty)
    .map((f) => f.name);
  if (mode === 'update' && keepers.length) {
    const loosened: Record<string, z.ZodType> = {};
    for (const k of keepers) {
      const field = base.shape[k] as z.ZodType | undefined;
      if (field) loosened[k] = z.union([z.literal(''), field]).optional();
    }
    base = base.extend(loosened);
  }
  const strict = base.strict();
  if (!entity.refine) return strict;
  return strict.superRefine((value, ctx) => {
    entity.refine!(value as never, {
      addIssue: (field, message) => ctx.addIssue({ code: 'custom', path: [field], message }),
    }, mode);
  });
}

/** zod issues -> `{ field: i18nKey }`, the first issue per field. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = issue.path.length ? String(issue.path[0]) : '_';
    if (out[field]) continue;
    out[field] = issue.message.startsWith('validation.') ? issue.message : issueKey(issue);
  }
  return out;
}

function issueKey(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'validation.required' : 'validation.type';
    case 'unrecognized_keys':
      return 'validation.unknownField';
    case 'invalid_value':
      return 'validation.option';
    case 'too_small':
      return issue.origin === 'string' && issue.minimum === 1 ? 'validation.required' : 'validation.tooSmall';
    case 'too_big':
      return 'validation.tooBig';
    default:
      return 'validation.invalid';
  }
}
