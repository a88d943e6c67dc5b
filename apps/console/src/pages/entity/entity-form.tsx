import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Alert, Button, Center, Group, Loader, Stack, Tabs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { AnyEntity, EntityRef } from '@portico/schema';
import { showSuccessNotice } from '../../shell/notice.js';
import {
  buildFormModel,
  formPayload,
  initialValues,
  isFieldVisible,
  type FieldValue,
  type FormFieldModel,
  type FormTabModel,
  type FormValues,
} from './entity-form-model.js';
import { clearFieldError, firstTabWithError, splitErrors, validateForm, type ErrorMap } from './entity-form-errors.js';
import { fetchEntityRecord, saveEntityRecord, type EntityRecord } from './entity-api.js';
import { refOptions, useRefChoices } from './entity-ref-choices.js';
import type { FormPreset } from './entity-routes.js';
import { EntityFieldInput } from './entity-field-input.js';

type LoadState = { status: 'loading' } | { status: 'ready'; record?: EntityRecord } | { status: 'failed'; reason: string };

export interface EntityFormProps {
  entity: AnyEntity;
  mode: 'add' | 'edit';
  /** The row edited (collections); a singleton has none. */
  id: string | null;
  /** The field the form is fixed to (a VPN client's type on `pptpadd`). */
  preset?: FormPreset | undefined;
  /** After a successful save. */
  onSaved(): void;
  onCancel(): void;
}

/**
 * The add/edit form of any declared entity (DESIGN §2), on its own page or in a drawer over the
 * list: built from the declaration, checked with the same schema the daemon uses, then posted.
 * Fields naming other rows offer those rows, read when the form opens.
 */
export function EntityForm({ entity, mode, id, preset, onSaved, onCancel }: EntityFormProps) {
  const { t, i18n } = useTranslation();
  const model = useMemo(() => buildFormModel(entity, mode, preset?.field), [entity, mode, preset?.field]);
  const start = useMemo(
    () => (record?: EntityRecord): FormValues => ({
      ...initialValues(entity, model, record),
      ...(preset && !record ? { [preset.field]: preset.value } : {}),
    }),
    [entity, model, preset],
  );

  const [load, setLoad] = useState<LoadState>(() => (mode === 'add' ? { status: 'ready' } : { status: 'loading' }));
  const [values, setValues] = useState<FormValues>(() => start());
  const [errors, setErrors] = useState<ErrorMap>({});
  const [activeTab, setActiveTab] = useState<string | null>(model.tabs[0]?.key ?? null);
  const [saving, setSaving] = useState(false);

  const refs = useMemo(() => {
    const out: Record<string, EntityRef> = {};
    for (const field of model.fields) if (field.ref) out[field.name] = field.ref;
    return out;
  }, [model]);
  const choices = useRefChoices(refs);

  useEffect(() => {
    setErrors({});
    setActiveTab(model.tabs[0]?.key ?? null);
    if (mode === 'add') {
      setValues(start());
      setLoad({ status: 'ready' });
      return;
    }
    if (entity.kind === 'collection' && !id) {
      setLoad({ status: 'failed', reason: 'entity.missingId' });
      return;
    }
    let current = true;
    setLoad({ status: 'loading' });
    fetchEntityRecord(entity, id)
      .then((record) => {
        if (!current) return;
        if (!record) {
          setLoad({ status: 'failed', reason: 'entity.loadFailed' });
          return;
        }
        setValues(start(record));
        setLoad({ status: 'ready', record });
      })
      .catch(() => {
        // The API client has already told the administrator why.
        if (current) setLoad({ status: 'failed', reason: 'entity.loadFailed' });
      });
    return () => {
      current = false;
    };
  }, [entity, mode, id, model, start]);

  const record = load.status === 'ready' ? load.record : undefined;
  // A key this console does not know yet (a newer daemon) still reads as a sentence.
  const errorText = (key: string) => (i18n.exists(key) ? t(key) : t('entity.invalidValue'));
  const split = splitErrors(model, values, errors);

  function change(name: string, value: FieldValue) {
    setValues((prev) => ({ ...prev, [name]: value }));
    setErrors((prev) => clearFieldError(prev, name));
  }

  function showErrors(found: ErrorMap) {
    setErrors(found);
    const tab = firstTabWithError(model, splitErrors(model, values, found).fields);
    if (tab) setActiveTab(tab);
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (saving || load.status !== 'ready') return;
    const found = validateForm(entity, model, values, record);
    if (Object.keys(found).length) {
      showErrors(found);
      return;
    }
    setSaving(true);
    try {
      const reply = await saveEntityRecord(entity, mode, id, formPayload(model, values));
      if (reply.success) {
        showSuccessNotice(t('entity.saved'));
        onSaved();
        return;
      }
      // The API client has shown the message; field errors go next to their fields.
      if (reply.errors) showErrors(reply.errors);
    } catch {
      // Network and HTTP failures are reported by the API client.
    } finally {
      setSaving(false);
    }
  }

  if (load.status === 'loading') {
    return (
      <Center py="xl" data-testid="entity-form-loading">
        <Loader aria-label={t('entity.loading')} />
      </Center>
    );
  }
  if (load.status === 'failed') {
    return (
      <Stack>
        <Alert color="red" data-testid="entity-form-failed">
          {t(load.reason)}
        </Alert>
        <Group>
          <Button variant="default" data-testid="entity-cancel" onClick={onCancel}>
            {t('entity.back')}
          </Button>
        </Group>
      </Stack>
    );
  }

  const withChoices = (field: FormFieldModel): FormFieldModel =>
    field.ref ? { ...field, options: refOptions(choices[field.name] ?? [], values[field.name] ?? null) } : field;

  const renderTab = (tab: FormTabModel) => (
    <Stack gap="md">
      {tab.fields
        .filter((field) => isFieldVisible(model, field.name, values))
        .map((field) => (
          <EntityFieldInput
            key={field.name}
            field={withChoices(field)}
            value={values[field.name] ?? null}
            error={split.fields[field.name] ? errorText(split.fields[field.name]!) : undefined}
            disabled={saving}
            onChange={(value) => change(field.name, value)}
          />
        ))}
    </Stack>
  );

  const otherErrors = Object.entries(split.other);

  return (
    <form data-testid="entity-form" noValidate onSubmit={(event) => void submit(event)}>
      <Stack gap="lg">
        {otherErrors.length > 0 && (
          <Alert color="red" title={t('entity.reviewFields')} data-testid="field-error-_">
            <Stack gap={4}>
              {otherErrors.map(([field, key]) => (
                <span key={field}>
                  {field === '_' ? errorText(key) : `${t(`${entity.name}.field.${field}`, { defaultValue: field })}: ${errorText(key)}`}
                </span>
              ))}
            </Stack>
          </Alert>
        )}
        {model.showTabs ? (
          <Tabs value={activeTab} onChange={setActiveTab}>
            <Tabs.List>
              {model.tabs.map((tab) => {
                const hasError = tab.fields.some((f) => split.fields[f.name]);
                return (
                  <Tabs.Tab key={tab.key} value={tab.key} color={hasError ? 'red' : undefined} data-testid={`tab-${tab.key}`}>
                    {t(`${entity.name}.tab.${tab.key}`, { defaultValue: t(`entity.tab.${tab.key}`, { defaultValue: tab.key }) })}
                  </Tabs.Tab>
                );
              })}
            </Tabs.List>
            {model.tabs.map((tab) => (
              <Tabs.Panel key={tab.key} value={tab.key} pt="md">
                {renderTab(tab)}
              </Tabs.Panel>
            ))}
          </Tabs>
        ) : (
          model.tabs[0] && renderTab(model.tabs[0])
        )}
        <Group justify="flex-end">
          <Button variant="default" data-testid="entity-cancel" disabled={saving} onClick={onCancel}>
            {t('entity.cancel')}
          </Button>
          <Button type="submit" data-testid="entity-save" loading={saving}>
            {t('entity.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
