import { z } from 'zod';
import type { AnyEntity, EntityRef, FieldWidget, FormFieldDef, VisibleWhen } from '@portico/schema';

/**
 * The add/edit form of an entity, derived from its declaration (DESIGN §2): which fields, in
 * which tabs, with which widget, labels, options and rules. Pure data, so it can be tested
 * without a browser and the page only renders it.
 */

export type FormMode = 'add' | 'edit';
export type OptionValue = string | number | boolean;
/** What a widget holds: text, a number ('' while empty), a switch, a select choice, tags. */
export type FieldValue = string | number | boolean | string[] | null;
export type FormValues = Record<string, FieldValue>;

export interface FieldOption {
  value: OptionValue;
  /** The value as text: Select widgets work on strings. */
  key: string;
  labelKey: string;
  /** Text shown as it is (a referenced row's name), instead of a translated label. */
  label?: string;
}

export interface FormFieldModel {
  name: string;
  widget: FieldWidget;
  labelKey: string;
  helpKey: string;
  options: FieldOption[];
  /** addOnly fields on edit, and the field a form is fixed to: shown but not changeable. */
  readOnly: boolean;
  /** Fixed by the form's sub-route on add (a VPN client's type on `pptpadd`): sent although read-only. */
  fixed: boolean;
  /** Rows of other entities the field chooses from; the options are loaded with the form. */
  ref?: EntityRef;
  /** Declared addOnly: fixed once the record exists (the form says so in both modes). */
  addOnly: boolean;
  /** On edit only: starts empty, and empty keeps the stored value. */
  keepWhenEmpty: boolean;
  required: boolean;
  visibleWhen?: VisibleWhen;
  min?: number;
  max?: number;
  integer: boolean;
}

export interface FormTabModel {
  key: string;
  fields: FormFieldModel[];
}

export interface FormModel {
  entity: string;
  mode: FormMode;
  tabs: FormTabModel[];
  /** Tabs are drawn only when there is more than one. */
  showTabs: boolean;
  fields: FormFieldModel[];
}

/** The schema modes of writeSchema(): the console says "edit", the API says "update". */
export function writeModeOf(mode: FormMode): 'add' | 'update' {
  return mode === 'edit' ? 'update' : 'add';
}

interface Unwrapped {
  inner: z.ZodType;
  optional: boolean;
  defaultValue?: unknown;
}

type AnyDef = { type: string; innerType?: z.ZodType; in?: z.ZodType; defaultValue?: unknown };

function defOf(schema: z.ZodType): AnyDef {
  return (schema as unknown as { def: AnyDef }).def;
}

/** Peels optional/nullable/default/pipe wrappers to the type a widget edits. */
export function unwrapField(schema: z.ZodType): Unwrapped {
  let current = schema;
  let optional = false;
  let defaultValue: unknown;
  for (let depth = 0; depth < 16; depth++) {
    const def = defOf(current);
    if (def.type === 'optional' || def.type === 'nullable') optional = true;
    else if (def.type === 'default' || def.type === 'prefault') {
      optional = true;
      if (defaultValue === undefined) defaultValue = def.defaultValue;
    } else if (def.type !== 'pipe' && def.type !== 'readonly') break;
    const next = def.type === 'pipe' ? def.in : def.innerType;
    if (!next) break;
    current = next;
  }
  return { inner: current, optional, defaultValue };
}

/** Literal values of an enum, a literal or a union of literals; null when it is none of those. */
export function choicesOf(schema: z.ZodType): OptionValue[] | null {
  const type = defOf(schema).type;
  if (type === 'enum') return (schema as z.ZodEnum).options as OptionValue[];
  if (type === 'literal') return [...(schema as z.ZodLiteral).values].filter(isOptionValue);
  if (type === 'union') {
    const out: OptionValue[] = [];
    for (const option of (schema as z.ZodUnion).options as z.ZodType[]) {
      const values = choicesOf(option);
      if (!values) return null;
      out.push(...values);
    }
    return out;
  }
  return null;
}

function isOptionValue(v: unknown): v is OptionValue {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** The widget a zod type calls for when the declaration does not name one. */
export function inferWidget(schema: z.ZodType): FieldWidget {
  const { inner } = unwrapField(schema);
  const type = defOf(inner).type;
  if (type === 'boolean') return 'switch';
  if (type === 'number' || type === 'int' || type === 'bigint') return 'number';
  if (choicesOf(inner)) return 'select';
  if (type === 'array') {
    const element = unwrapField((inner as z.ZodArray<z.ZodType>).element).inner;
    if (defOf(element).type === 'string') return 'tags';
  }
  return 'text';
}

/** The widget of a field naming other rows: one choice, or several for a list. */
function refWidget(schema: z.ZodType | undefined): FieldWidget {
  return schema && defOf(unwrapField(schema).inner).type === 'array' ? 'multiselect' : 'select';
}

function fieldModel(entity: AnyEntity, def: FormFieldDef, mode: FormMode, fixedField?: string): FormFieldModel {
  const schema = entity.schema.shape[def.name] as z.ZodType | undefined;
  const unwrapped = schema ? unwrapField(schema) : { inner: z.string(), optional: true };
  const widget: FieldWidget = def.ref
    ? refWidget(schema)
    : (def.widget ?? (def.options ? 'select' : schema ? inferWidget(schema) : 'text'));
  const values: OptionValue[] = def.options ? [...def.options] : (choicesOf(unwrapped.inner) ?? []);
  const keepWhenEmpty = mode === 'edit' && def.keepWhenEmpty === true;
  const innerType = defOf(unwrapped.inner).type;
  const numeric = innerType === 'number' ? (unwrapped.inner as z.ZodNumber) : null;
  const minLength = innerType === 'string' ? (unwrapped.inner as z.ZodString).minLength : null;
  const fixed = mode === 'add' && fixedField === def.name;
  const readOnly = (mode === 'edit' && def.addOnly === true) || fixedField === def.name;
  let required =
    !unwrapped.optional && !keepWhenEmpty && !readOnly && widget !== 'switch' && widget !== 'tags' && widget !== 'multiselect';
  // A plain string accepts '' (a confirm box); only a minimum length makes it required.
  if (innerType === 'string' && !(minLength && minLength > 0)) required = false;
  const model: FormFieldModel = {
    name: def.name,
    widget,
    labelKey: `${entity.name}.field.${def.name}`,
    helpKey: `${entity.name}.help.${def.name}`,
    // A choice of fixed values, one (select) or several (multiselect); a ref's come from its rows.
    options:
      (widget === 'select' || widget === 'multiselect') && !def.ref
        ? values.map((value) => ({
            value,
            key: String(value),
            labelKey: `${entity.name}.option.${def.name}.${String(value)}`,
          }))
        : [],
    readOnly,
    fixed,
    addOnly: def.addOnly === true,
    keepWhenEmpty,
    required,
    integer: numeric?.isInt ?? false,
  };
  if (def.visibleWhen) model.visibleWhen = def.visibleWhen;
  if (def.ref) model.ref = def.ref;
  if (numeric && numeric.minValue !== null && Number.isFinite(numeric.minValue)) model.min = numeric.minValue;
  if (numeric && numeric.maxValue !== null && Number.isFinite(numeric.maxValue)) model.max = numeric.maxValue;
  return model;
}

/** Without a declared form every schema field but `id` is shown, in schema order. */
function declaredTabs(entity: AnyEntity): ReadonlyArray<{ key: string; fields: ReadonlyArray<FormFieldDef> }> {
  if (entity.form?.tabs.length) return entity.form.tabs;
  const names = Object.keys(entity.schema.shape).filter((n) => n !== 'id');
  return [{ key: 'basic', fields: names.map((name) => ({ name })) }];
}

/** `fixedField`: the field the form's sub-route fixes (shown read-only; on add sent as preset). */
export function buildFormModel(entity: AnyEntity, mode: FormMode, fixedField?: string): FormModel {
  const tabs = declaredTabs(entity).map((tab) => ({
    key: tab.key,
    fields: tab.fields.map((def) => fieldModel(entity, def, mode, fixedField)),
  }));
  return { entity: entity.name, mode, tabs, showTabs: tabs.length > 1, fields: tabs.flatMap((t) => t.fields) };
}

function emptyValue(field: FormFieldModel): FieldValue {
  switch (field.widget) {
    case 'switch':
      return false;
    case 'tags':
    case 'multiselect':
      return [];
    case 'select':
      return null;
    default:
      return '';
  }
}

const TRUE_TEXT = new Set(['1', 'true', 'on', 'yes']);

/** A stored or default value as the widget holds it. */
export function toFieldValue(field: FormFieldModel, value: unknown): FieldValue {
  if (value === undefined || value === null) return emptyValue(field);
  switch (field.widget) {
    case 'switch':
      return typeof value === 'string' ? TRUE_TEXT.has(value.toLowerCase()) : Boolean(value);
    case 'tags':
    case 'multiselect':
      if (Array.isArray(value)) return value.map(String);
      return typeof value === 'string' ? value.split(/\s+/).filter(Boolean) : [];
    case 'lines':
      return Array.isArray(value) ? value.map(String).join('\n') : String(value);
    case 'number':
      return typeof value === 'number' ? value : Number.isFinite(Number(value)) && value !== '' ? Number(value) : '';
    case 'select': {
      const match = field.options.find((o) => o.value === value || o.key === String(value));
      return match ? match.value : isOptionValue(value) ? value : null;
    }
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

/** What the form starts with: schema defaults on add, the stored record on edit. */
export function initialValues(entity: AnyEntity, model: FormModel, record?: Record<string, unknown>): FormValues {
  const out: FormValues = {};
  for (const field of model.fields) {
    if (field.keepWhenEmpty) {
      out[field.name] = emptyValue(field);
      continue;
    }
    if (model.mode === 'edit' && record) {
      out[field.name] = toFieldValue(field, record[field.name]);
      continue;
    }
    const schema = entity.schema.shape[field.name] as z.ZodType | undefined;
    let fallback = schema ? unwrapField(schema).defaultValue : undefined;
    // Like a native select, a required choice without a default starts on its first option.
    if (fallback === undefined && field.widget === 'select' && field.required) fallback = field.options[0]?.value;
    out[field.name] = toFieldValue(field, Array.isArray(fallback) ? [...fallback] : fallback);
  }
  return out;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (a !== null && a !== undefined && b !== null && b !== undefined && String(a) === String(b));
}

export function ruleHolds(rule: VisibleWhen, values: FormValues): boolean {
  const actual = values[rule.field];
  if ('equals' in rule) return sameValue(actual, rule.equals);
  return rule.in.some((candidate) => sameValue(actual, candidate));
}

/**
 * Whether a field is shown. A field whose controlling field is itself hidden is hidden too,
 * so a chain of rules behaves like nested sections.
 */
export function isFieldVisible(model: FormModel, name: string, values: FormValues, seen: ReadonlySet<string> = new Set()): boolean {
  const field = model.fields.find((f) => f.name === name);
  if (!field?.visibleWhen) return true;
  if (!ruleHolds(field.visibleWhen, values)) return false;
  const parent = field.visibleWhen.field;
  if (seen.has(parent) || !model.fields.some((f) => f.name === parent)) return true;
  return isFieldVisible(model, parent, values, new Set([...seen, name]));
}

export function visibleFieldNames(model: FormModel, values: FormValues): string[] {
  return model.fields.filter((f) => isFieldVisible(model, f.name, values)).map((f) => f.name);
}

/**
 * The body fields of a write: visible, changeable fields only. Hidden fields are left out so
 * the server keeps (or defaults) them; an empty number or unchosen select is left out so the
 * schema reports it as required.
 */
export function formPayload(model: FormModel, values: FormValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of model.fields) {
    if ((field.readOnly && !field.fixed) || !isFieldVisible(model, field.name, values)) continue;
    const value = values[field.name];
    if (value === undefined || value === null) continue;
    if (field.widget === 'lines' && typeof value === 'string') {
      // Trailing blank lines are dropped; blank lines inside are paragraph breaks.
      out[field.name] = value === '' ? [] : value.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n');
      continue;
    }
    if (field.widget === 'number' && typeof value === 'string') {
      if (value.trim() === '') continue;
      // Text that is not a number is sent as typed, so the schema reports it.
      out[field.name] = Number.isFinite(Number(value)) ? Number(value) : value;
      continue;
    }
    out[field.name] = value;
  }
  return out;
}
