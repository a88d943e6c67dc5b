import '@mantine/core/styles/Drawer.css';
import { useCallback, useMemo, useState } from 'react';
import { Box, Button, Checkbox, Drawer, Group, LoadingOverlay, Stack, Table, Tabs, Text, UnstyledButton } from '@mantine/core';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { AnyEntity, ListColumnDef, RowActionDef } from '@portico/schema';
import { showSuccessNotice } from '../../shell/notice.js';
import { columnHeaderKey, formatCell, rowId, type CellContext } from './entity-columns.js';
import { keepSelection, toggleSort, type ListState } from './entity-list-query.js';
import { fetchEntityPage, postRowAction, rowActionsOf, type EntityRecord } from './entity-api.js';
import { useEntityListData } from './entity-list-data.js';
import { EntityCell, EntityDeleteConfirm, EntityListFooter, EntitySearchBox } from './entity-list-parts.js';
import { addActions, editTarget, LIST_TAB_PARAM, linkRouted, listRouteOf, type FormPreset, type FormTarget } from './entity-routes.js';
import { useCurrentRoute } from '../../routes/current-route.js';
import EntityFormPage from './entity-form-page.js';
import { EntityForm } from './entity-form.js';
import { useEntityFormTitle, useEntityTitle } from './entity-title.js';
import { PageHeading } from '../../shell/page-heading.js';

function SortMark({ active, order }: { active: boolean; order: 'asc' | 'desc' }) {
  return (
    <Text span size="xs" c={active ? undefined : 'dimmed'} aria-hidden>
      {active ? (order === 'asc' ? '▲' : '▼') : '↕'}
    </Text>
  );
}

/**
 * The page of an entity route (DESIGN §2): a singleton's form, or the list of a collection
 * whose columns, search, paging, sorting, add, edit and delete come from the declaration;
 * nothing here knows a particular entity. A route listing several collections (IP and MAC
 * bandwidth rules) shows one tab each. The title is the menu label that leads here.
 */
export function EntityRoutePage({ entities }: { entities: readonly AnyEntity[] }) {
  const [params] = useSearchParams();
  const first = entities[0]!;
  const title = useEntityTitle(first);
  const [tab, setTab] = useState<string | null>(() => entities.find((e) => e.name === params.get(LIST_TAB_PARAM))?.name ?? first.name);
  if (entities.length === 1 && first.kind === 'singleton') return <EntityFormPage entity={first} mode="edit" />;
  return (
    <Stack data-testid="entity-page">
      <PageHeading title={title} />
      {entities.length === 1 ? (
        <EntityCollection entity={first} />
      ) : (
        <EntityTabs entities={entities} tab={tab} onTab={setTab} />
      )}
    </Stack>
  );
}

function EntityTabs({ entities, tab, onTab }: { entities: readonly AnyEntity[]; tab: string | null; onTab(tab: string | null): void }) {
  const { t } = useTranslation();
  // One list at a time: each keeps its search, sort and page in the address.
  return (
    <Tabs value={tab} onChange={onTab} keepMounted={false}>
      <Tabs.List>
        {entities.map((entity) => (
          <Tabs.Tab key={entity.name} value={entity.name} data-testid={`entity-tab-${entity.name}`}>
            {t(`${entity.name}.title`)}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {entities.map((entity) => (
        <Tabs.Panel key={entity.name} value={entity.name} pt="md">
          <EntityCollection entity={entity} />
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}

/** The page of one entity route (kept for callers that hold a single entity). */
export default function EntityListPage({ entity }: { entity: AnyEntity }) {
  return <EntityRoutePage entities={[entity]} />;
}

/** A form opened over the list: where the menu has no sub-route for it (LuCI-style editing in place). */
interface DrawerForm {
  mode: 'add' | 'edit';
  id: string | null;
  preset?: FormPreset | undefined;
}

function EntityCollection({ entity }: { entity: AnyEntity }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const route = useCurrentRoute();
  const listRoute = listRouteOf(entity, location.pathname);
  const subRoutes = route?.subRoutes ?? [];
  const adds = addActions(entity, listRoute, subRoutes);
  const [drawer, setDrawer] = useState<DrawerForm | null>(null);
  const drawerTitle = useEntityFormTitle(entity, drawer?.mode ?? 'add', drawer?.preset);
  const columns: readonly ListColumnDef[] = entity.list?.columns ?? [];
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const load = useCallback((state: ListState) => fetchEntityPage(entity, state), [entity]);
  const list = useEntityListData(entity, load, {
    loaded: (items) => setSelected((prev) => keepSelection(prev, items.map(rowId))),
    deleted: () => setSelected(new Set()),
  });
  const { state, setState, items, loading, setPendingDelete } = list;

  function open(target: FormTarget, form: DrawerForm) {
    if (target.kind === 'page') navigate(target.path);
    else setDrawer(form);
  }

  const ctx: CellContext = useMemo(
    () => ({ t: (key, options) => t(key, options ?? {}), exists: (key) => i18n.exists(key) }),
    [t, i18n],
  );

  const pageIds = items.map(rowId).filter(Boolean);
  const allSelected = pageIds.length > 0 && pageIds.every((id) => selected.has(id));
  const someSelected = pageIds.some((id) => selected.has(id));

  function toggleRow(id: string, on: boolean) {
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }

  function toggleAll(on: boolean) {
    setSelected(on ? new Set(pageIds) : new Set());
  }

  const [runningAction, setRunningAction] = useState<string | null>(null);
  async function runRowAction(action: RowActionDef, record: EntityRecord, id: string) {
    setRunningAction(`${action.key}:${id}`);
    try {
      // Failures are reported by the API client.
      const reply = await postRowAction(action, record);
      if (reply.success) showSuccessNotice(t(`${entity.name}.action.${action.key}Done`));
    } finally {
      setRunningAction(null);
    }
  }

  const headerLabel = (field: string) => t(columnHeaderKey(entity, field, ctx.exists));
  const colSpan = columns.length + 2;

  return (
    <Stack data-testid="entity-list">
      <Group justify="space-between" wrap="wrap">
        <EntitySearchBox list={list} />
        <Group gap="sm">
          {selected.size > 0 && (
            <Button
              color="red"
              variant="light"
              data-testid="entity-delete-selected"
              onClick={() => setPendingDelete({ ids: [...selected] })}
            >
              {t('entity.deleteSelected', { count: selected.size })}
            </Button>
          )}
          {(entity.links ?? []).filter((link) => linkRouted(link, listRoute, subRoutes)).map((link) => (
            <Button key={link.key} variant="default" data-testid={`entity-link-${link.key}`} onClick={() => navigate(link.route)}>
              {t(`${entity.name}.link.${link.key}`)}
            </Button>
          ))}
          {adds.map((action) => (
            <Button
              key={action.key}
              data-testid={action.preset ? `entity-add-${action.key}` : 'entity-add'}
              onClick={() => open(action.target, { mode: 'add', id: null, preset: action.preset })}
            >
              {action.preset ? t('entity.addKind', { kind: t(`${entity.name}.option.${action.preset.field}.${action.preset.value}`) }) : t('entity.add')}
            </Button>
          ))}
        </Group>
      </Group>

      <Box pos="relative">
        <LoadingOverlay visible={loading} zIndex={5} overlayProps={{ blur: 1 }} />
        <Table.ScrollContainer minWidth={600}>
          <Table striped highlightOnHover verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={40}>
                  <Checkbox
                    aria-label={t('entity.selectAll')}
                    data-testid="entity-select-all"
                    checked={allSelected}
                    indeterminate={someSelected && !allSelected}
                    disabled={pageIds.length === 0}
                    onChange={(event) => toggleAll(event.currentTarget.checked)}
                  />
                </Table.Th>
                {columns.map((column) => {
                  const label = headerLabel(column.field);
                  if (!column.sortable) return <Table.Th key={column.field}>{label}</Table.Th>;
                  const active = state.sort === column.field;
                  return (
                    <Table.Th
                      key={column.field}
                      aria-sort={active ? (state.order === 'asc' ? 'ascending' : 'descending') : 'none'}
                    >
                      <UnstyledButton
                        data-testid={`entity-sort-${column.field}`}
                        aria-label={t('entity.sortBy', { column: label })}
                        onClick={() => setState(toggleSort(state, column.field))}
                      >
                        <Group gap={4} wrap="nowrap">
                          <Text span fw={700} size="sm">
                            {label}
                          </Text>
                          <SortMark active={active} order={state.order} />
                        </Group>
                      </UnstyledButton>
                    </Table.Th>
                  );
                })}
                <Table.Th ta="right">{t('entity.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.length === 0 && !loading && (
                <Table.Tr>
                  <Table.Td colSpan={colSpan}>
                    <Text ta="center" c="dimmed" py="lg" data-testid="entity-empty">
                      {state.q ? t('entity.noMatch', { q: state.q }) : t('entity.noData')}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              )}
              {items.map((record, index) => {
                const id = rowId(record);
                return (
                  <Table.Tr key={id || `row-${index}`} data-testid={`entity-row-${id}`}>
                    <Table.Td>
                      <Checkbox
                        aria-label={t('entity.selectRow')}
                        data-testid={`entity-select-${id}`}
                        checked={selected.has(id)}
                        disabled={!id}
                        onChange={(event) => toggleRow(id, event.currentTarget.checked)}
                      />
                    </Table.Td>
                    {columns.map((column) => (
                      <Table.Td key={column.field}>
                        <EntityCell view={formatCell(entity, column, record[column.field], ctx)} />
                      </Table.Td>
                    ))}
                    <Table.Td>
                      <Group gap="xs" justify="flex-end" wrap="nowrap">
                        <Button
                          size="xs"
                          variant="light"
                          data-testid={`entity-edit-${id}`}
                          disabled={!id}
                          onClick={() => open(editTarget(entity, listRoute, subRoutes, record, id), { mode: 'edit', id })}
                        >
                          {t('entity.edit')}
                        </Button>
                        {rowActionsOf(entity, record).map((action) => (
                          <Button
                            key={action.key}
                            size="xs"
                            variant="light"
                            data-testid={`entity-action-${action.key}-${id}`}
                            loading={runningAction === `${action.key}:${id}`}
                            onClick={() => void runRowAction(action, record, id)}
                          >
                            {t(`${entity.name}.action.${action.key}`)}
                          </Button>
                        ))}
                        <Button
                          size="xs"
                          variant="light"
                          color="red"
                          data-testid={`entity-delete-${id}`}
                          disabled={!id}
                          onClick={() => setPendingDelete({ id })}
                        >
                          {t('entity.delete')}
                        </Button>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Box>

      <EntityListFooter list={list} />
      <EntityDeleteConfirm list={list} />
      <Drawer
        opened={drawer !== null}
        onClose={() => setDrawer(null)}
        position="right"
        size="lg"
        title={drawerTitle}
        data-testid="entity-drawer"
      >
        {drawer && (
          <EntityForm
            key={`${drawer.mode}:${drawer.id ?? ''}`}
            entity={entity}
            mode={drawer.mode}
            id={drawer.id}
            preset={drawer.preset}
            onSaved={() => {
              setDrawer(null);
              list.reload();
            }}
            onCancel={() => setDrawer(null)}
          />
        )}
      </Drawer>
    </Stack>
  );
}
