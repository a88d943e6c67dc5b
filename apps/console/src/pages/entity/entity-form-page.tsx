import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Alert, Button, Center, Group, Loader, Paper, Stack, Tabs, Title } from '@mantine/core';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { AnyEntity } from '@portico/schema';
import { showSuccessNotice } from '../../shell/notice.js';
import {
  buildFormModel,
  formPayload,
  initialValues,
  isFieldVisible,
  type FieldValue,
  type FormTabModel,
  type FormValues,
} from './entity-form-model.js';
import { clearFieldError, firstTabWithError, splitErrors, validateForm, type ErrorMap } from './entity-form-errors.js';
import { fetchEntityRecord, saveEntityRecord, type EntityRecord } from './entity-api.js';
import { listRouteOf } from './entity-routes.js';
import { EntityFieldInput } from './entity-field-input.js';

type LoadState = { status: 'loading' } | { status: 'ready'; record?: EntityRecord } | { status: 'failed'; reason: string };

/**
 * Add and edit page of any declared entity (DESIGN §2): the form is built from the
 * declaration, checked with the same schema the daemon uses, then posted.
 */
export default function EntityFormPage({ entity, mode }: { entity: AnyEntity; mode: 'add' | 'edit' }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const id = params.get('id');
  const model = useMemo(() => buildFormModel(entity, mode), [entity, mode]);
  const listRoute = listRouteOf(entity, location.pathname);

  const [load, setLoad] = useState<LoadState>(() =>
    mode === 'add' ? { status: 'ready' } : { status: 'loading' },
  );
  const [values, setValues] = useState<FormValues>(() => initialValues(entity, model));
  const [errors, setErrors] = useState<ErrorMap>({});
  const [activeTab, setActiveTab] = useState<string | null>(model.tabs[0]?.key ?? null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    setErrors({});
    setActiveTab(model.tabs[0]?.key ?? null);
    if (mode === 'add') {
      setValues(initialValues(entity, model));
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
        setValues(initialValues(entity, model, record));
        setLoad({ status: 'ready', record });
      })
      .catch(() => {
        // The API client has already told the administrator why.
        if (current) setLoad({ status: 'failed', reason: 'entity.loadFailed' });
      });
    return () => {
      current = false;
    };
  }, [entity, mode, id, model]);

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
        navigate(listRoute);
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

  const title = t(mode === 'add' ? 'entity.addTitle' : 'entity.editTitle', { title: t(`${entity.name}.title`) });

  if (load.status === 'loading') {
    return (
      <Center py="xl" data-testid="entity-form-loading">
        <Loader aria-label={t('entity.loading')} />
      </Center>
    );
  }
  if (load.status === 'failed') {
    return (
      <Stack maw={720}>
        <Title order={3}>{title}</Title>
        <Alert color="red" data-testid="entity-form-failed">
          {t(load.reason)}
        </Alert>
        <Group>
          <Button variant="default" data-testid="entity-cancel" onClick={() => navigate(listRoute)}>
            {t('entity.back')}
          </Button>
        </Group>
      </Stack>
    );
  }

  const renderTab = (tab: FormTabModel) => (
    <Stack gap="md">
      {tab.fields
        .filter((field) => isFieldVisible(model, field.name, values))
        .map((field) => (
          <EntityFieldInput
            key={field.name}
            field={field}
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
    <Stack maw={720}>
      <Title order={3}>{title}</Title>
      <Paper withBorder p="lg" radius="md">
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
              <Button variant="default" data-testid="entity-cancel" disabled={saving} onClick={() => navigate(listRoute)}>
                {t('entity.cancel')}
              </Button>
              <Button type="submit" data-testid="entity-save" loading={saving}>
                {t('entity.save')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
    </Stack>
  );
}
