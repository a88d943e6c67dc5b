import { fieldErrors, writeSchema, type AnyEntity } from '@portico/schema';
import { formPayload, visibleFieldNames, writeModeOf, type FormModel, type FormValues } from './entity-form-model.js';

/** Field name -> i18n key, the shape both the client check and the server reply use. */
export type ErrorMap = Record<string, string>;

export interface SplitErrors {
  /** Errors that land on a field the form shows. */
  fields: ErrorMap;
  /** Errors on fields the form does not show (or on the whole record, `_`): listed above the form. */
  other: ErrorMap;
}

/** Only the schema's own keys: a read may carry extra fields a strict write refuses. */
function schemaFields(entity: AnyEntity, record: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!record) return out;
  for (const key of Object.keys(entity.schema.shape)) if (key in record) out[key] = record[key];
  return out;
}

/**
 * The record the server will validate. On edit it merges the form into the stored record
 * (as the daemon does); on add it is the form alone and the server assigns `id`.
 */
export function writeCandidate(
  entity: AnyEntity,
  model: FormModel,
  values: FormValues,
  record?: Record<string, unknown>,
): Record<string, unknown> {
  const body = formPayload(model, values);
  return model.mode === 'edit' ? { ...schemaFields(entity, record), ...body } : body;
}

/** The same check the daemon runs, done before sending so mistakes show at once. */
export function validateForm(
  entity: AnyEntity,
  model: FormModel,
  values: FormValues,
  record?: Record<string, unknown>,
): ErrorMap {
  const candidate = writeCandidate(entity, model, values, record);
  const result = writeSchema(entity, writeModeOf(model.mode)).safeParse(candidate);
  if (result.success) return {};
  const errors = fieldErrors(result.error);
  // A field left empty is "required", whatever the schema says about wrong values.
  for (const field of model.fields) {
    if (errors[field.name] && candidate[field.name] === undefined) errors[field.name] = 'validation.required';
    // A write-only field kept when left empty (a stored key) is never read back, so the console
    // cannot tell a kept value from a missing one: that "required" is the daemon's to say, after
    // it merged the stored record.
    const empty = candidate[field.name] === undefined || candidate[field.name] === '';
    if (field.keepWhenEmpty && empty && errors[field.name] === 'validation.required') delete errors[field.name];
  }
  return errors;
}

/** Sorts errors onto the fields that are on screen; the rest are shown as a list. */
export function splitErrors(model: FormModel, values: FormValues, errors: ErrorMap | undefined): SplitErrors {
  const shown = new Set(visibleFieldNames(model, values));
  const out: SplitErrors = { fields: {}, other: {} };
  for (const [field, key] of Object.entries(errors ?? {})) {
    if (shown.has(field)) out.fields[field] = key;
    else out.other[field] = key;
  }
  return out;
}

/** The first tab holding a field error, so the form can switch to it. */
export function firstTabWithError(model: FormModel, errors: ErrorMap): string | null {
  for (const tab of model.tabs) if (tab.fields.some((f) => errors[f.name])) return tab.key;
  return null;
}

/** Drops one field's error when the user edits that field. */
export function clearFieldError(errors: ErrorMap, field: string): ErrorMap {
  if (!(field in errors)) return errors;
  const { [field]: _dropped, ...rest } = errors;
  return rest;
}
