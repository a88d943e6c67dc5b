import { useCallback, useMemo, useState } from 'react';
import { Box, Button, Checkbox, Group, LoadingOverlay, Stack, Table, Text, Title, UnstyledButton } from '@mantine/core';
import { useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { AnyEntity, ListColumnDef, RowActionDef } from '@portico/schema';
import { showSuccessNotice } from '../../shell/notice.js';
import { columnHeaderKey, formatCell, rowId, type CellContext } from './entity-columns.js';
import { keepSelection, toggleSort, type ListState } from './entity-list-query.js';
import { fetchEntityPage, postRowAction, rowActionsOf, type EntityRecord } from './entity-api.js';
import { useEntityListData } from './entity-list-data.js';
import { EntityCell, EntityDeleteConfirm, EntityListFooter, EntitySearchBox } from './entity-list-parts.js';
import { addRouteOf, editRouteOf, listRouteOf } from './entity-routes.js';
import EntityFormPage from './entity-form-page.js';

function SortMark({ active, order }: { active: boolean; order: 'asc' | 'desc' }) {
  return (
    <Text span size="xs" c={active ? undefined : 'dimmed'} aria-hidden>
      {active ? (order === 'asc' ? '▲' : '▼') : '↕'}
    </Text>
  );
}

/**
 * List page of any declared collection (DESIGN §2): columns, search, paging, sorting, add,
 * edit and delete come from the declaration; nothing here knows a particular entity. A
 * singleton has no list: its route shows its one record's form.
 */
export default function EntityListPage({ entity }: { entity: AnyEntity }) {
  return entity.kind === 'singleton' ? <EntityFormPage entity={entity} mode="edit" /> : <EntityCollectionPage entity={entity} />;
}

function EntityCollectionPage({ entity }: { entity: AnyEntity }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const listRoute = listRouteOf(entity, location.pathname);
  const columns: readonly ListColumnDef[] = entity.list?.columns ?? [];
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const load = useCallback((state: ListState) => fetchEntityPage(entity, state), [entity]);
  const list = useEntityListData(entity, load, {
    loaded: (items) => setSelected((prev) => keepSelection(prev, items.map(rowId))),
    deleted: () => setSelected(new Set()),
  });
  const { state, setState, items, loading, setPendingDelete } = list;

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
      <Title order={3}>{t(`${entity.name}.title`)}</Title>
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
          {(entity.links ?? []).map((link) => (
            <Button key={link.key} variant="default" data-testid={`entity-link-${link.key}`} onClick={() => navigate(link.route)}>
              {t(`${entity.name}.link.${link.key}`)}
            </Button>
          ))}
          <Button data-testid="entity-add" onClick={() => navigate(addRouteOf(listRoute))}>
            {t('entity.add')}
          </Button>
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
                          onClick={() => navigate(editRouteOf(listRoute, id))}
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
    </Stack>
  );
}
