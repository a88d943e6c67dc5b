import { useEffect, useMemo, useState } from 'react';
import { entityByName, type EntityRef, type ListPage } from '@portico/schema';
import { apiGet } from '../../api/api-client.js';
import { ruleHolds, type FieldOption, type FieldValue, type FormValues } from './entity-form-model.js';

/**
 * Choices of the fields that name other entities' rows (a zone's interface, a voucher's plan):
 * read from the referenced lists, so a reference is picked among what exists, never typed.
 */

export interface RefChoice {
  value: string;
  label: string;
}

export type RowsByEntity = Readonly<Record<string, ReadonlyArray<Readonly<Record<string, unknown>>>>>;

/** The rows a reference offers, in source order; a value listed twice is offered once. */
export function refChoices(ref: EntityRef, rows: RowsByEntity): RefChoice[] {
  const out: RefChoice[] = [];
  const seen = new Set<string>();
  for (const source of ref) {
    for (const row of rows[source.entity] ?? []) {
      if (source.where && !ruleHolds(source.where, row as FormValues)) continue;
      const value = row[source.value];
      if (typeof value !== 'string' || value === '' || seen.has(value)) continue;
      seen.add(value);
      const label = source.label ? row[source.label] : value;
      out.push({ value, label: typeof label === 'string' && label !== '' ? label : value });
    }
  }
  return out;
}

/**
 * The choices as select options, with the stored value(s) kept when they are not (or no
 * longer) among them, so the form shows what is saved instead of silently dropping it.
 */
export function refOptions(choices: readonly RefChoice[], current: FieldValue): FieldOption[] {
  const options: FieldOption[] = choices.map((c) => ({ value: c.value, key: c.value, labelKey: '', label: c.label }));
  const stored = Array.isArray(current) ? current : typeof current === 'string' && current !== '' ? [current] : [];
  for (const value of stored) {
    if (!options.some((o) => o.key === value)) options.push({ value, key: value, labelKey: '', label: value });
  }
  return options;
}

async function fetchRows(entityName: string): Promise<Array<Record<string, unknown>>> {
  const entity = entityByName(entityName);
  if (!entity) return [];
  // Without paging the daemon returns every row (the lists referenced are small: maxRows).
  const page = await apiGet<ListPage<Record<string, unknown>>>(entity.path);
  return page.items;
}

/** Loads the rows every given reference names (each entity once) and gives each field its choices. */
export function useRefChoices(refs: Readonly<Record<string, EntityRef>>): Record<string, RefChoice[]> {
  const entities = useMemo(() => [...new Set(Object.values(refs).flatMap((ref) => ref.map((s) => s.entity)))].sort(), [refs]);
  const entitiesKey = entities.join(',');
  const [rows, setRows] = useState<RowsByEntity>({});
  useEffect(() => {
    let current = true;
    for (const name of entities) {
      fetchRows(name)
        .then((items) => {
          if (current) setRows((prev) => ({ ...prev, [name]: items }));
        })
        .catch(() => {
          // The API client has reported it; the field offers what it has.
        });
    }
    return () => {
      current = false;
    };
    // entities is derived from entitiesKey.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [entitiesKey]);
  return useMemo(() => Object.fromEntries(Object.entries(refs).map(([field, ref]) => [field, refChoices(ref, rows)])), [refs, rows]);
}
