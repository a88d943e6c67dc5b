import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  Badge,
  Box,
  Button,
  Checkbox,
  Group,
  LoadingOverlay,
  Modal,
  Pagination,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { AnyEntity, ListColumnDef, RowActionDef } from '@portico/schema';
import { showSuccessNotice } from '../../shell/notice.js';
import { columnHeaderKey, formatCell, rowId, type CellContext, type CellView } from './entity-columns.js';
import {
  keepSelection,
  pageAfterShrink,
  pageCount,
  PAGE_SIZES,
  readListState,
  toggleSort,
  withPageSize,
  withSearch,
  writeListState,
  type ListState,
} from './entity-list-query.js';
import { deleteEntityRecords, fetchEntityPage, postRowAction, rowActionsOf, type EntityRecord } from './entity-api.js';
import { addRouteOf, editRouteOf, listRouteOf } from './entity-routes.js';
import EntityFormPage from './entity-form-page.js';

type DeleteTarget = { id: string } | { ids: string[] };

function Cell({ view }: { view: CellView }) {
  switch (view.kind) {
    case 'tags':
      return (
        <Group gap={4}>
          {view.items.map((item, index) => (
            <Badge key={`${index}-${item}`} variant="light" color="gray" tt="none">
              {item}
            </Badge>
          ))}
        </Group>
      );
    case 'state':
      return (
        <Badge variant="light" color={view.on ? 'teal' : 'gray'} tt="none">
          {view.text}
        </Badge>
      );
    case 'empty':
      return (
        <Text span c="dimmed" size="sm">
          {view.text}
        </Text>
      );
    default:
      return <>{view.text}</>;
  }
}

function SortMark({ active, order }: { active: boolean; order: 'asc' | 'desc' }) {
  return (
    <Text span size="xs" c={active ? undefined : 'dimmed'} aria-hidden>
      {active ? (order === 'asc' ? '▲' : '▼') : '↕'}
    </Text>
  );
}

/**
 * List page of any declared collection (DESIGN §2): columns, search, paging, sorting, add,
 * edit and delete come from the declaration; nothing here knows a particular entity.
 */
/** A singleton has no list: its route shows its one record's form. */
export default function EntityListPage({ entity }: { entity: AnyEntity }) {
  return entity.kind === 'singleton' ? <EntityFormPage entity={entity} mode="edit" /> : <EntityCollectionPage entity={entity} />;
}

function EntityCollectionPage({ entity }: { entity: AnyEntity }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const [params, setParams] = useSearchParams();
  const state = useMemo(() => readListState(entity, params), [entity, params]);
  const listRoute = listRouteOf(entity, location.pathname);
  const columns: readonly ListColumnDef[] = entity.list?.columns ?? [];

  const [items, setItems] = useState<EntityRecord[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [reloadToken, setReloadToken] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [pendingDelete, setPendingDelete] = useState<DeleteTarget | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [search, setSearch] = useState(state.q);
  const [debouncedSearch] = useDebouncedValue(search, 300);
  const latestRequest = useRef(0);

  const setState = useCallback(
    (next: ListState) => setParams(writeListState(entity, next), { replace: true }),
    [entity, setParams],
  );

  // Typing searches after a short pause; the address stays the source of truth. The state is
  // read through a ref so that paging alone never re-applies a stale search text.
  const stateRef = useRef(state);
  stateRef.current = state;
  useEffect(() => {
    const current = stateRef.current;
    const next = withSearch(current, debouncedSearch);
    if (next !== current) setState(next);
  }, [debouncedSearch, setState]);

  // Back/forward navigation can change q under the box.
  useEffect(() => {
    setSearch((current) => (current.trim() === state.q.trim() ? current : state.q));
  }, [state.q]);

  useEffect(() => {
    const request = ++latestRequest.current;
    setLoading(true);
    fetchEntityPage(entity, state)
      .then((page) => {
        if (request !== latestRequest.current) return;
        const shrunk = pageAfterShrink(state, page.total);
        if (shrunk !== null && page.items.length === 0 && page.total > 0) {
          setState({ ...state, page: shrunk });
          return;
        }
        setItems(page.items);
        setTotal(page.total);
        setSelected((prev) => keepSelection(prev, page.items.map(rowId)));
      })
      .catch(() => {
        // The API client reports failures; keep what was shown.
      })
      .finally(() => {
        if (request === latestRequest.current) setLoading(false);
      });
  }, [entity, state, reloadToken, setState]);

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

  async function confirmDelete() {
    if (!pendingDelete || deleting) return;
    setDeleting(true);
    try {
      const reply = await deleteEntityRecords(entity, pendingDelete);
      if (reply.success) {
        showSuccessNotice(t('entity.deleted'));
        setSelected(new Set());
        setReloadToken((n) => n + 1);
      }
    } catch {
      // Reported by the API client.
    } finally {
      setDeleting(false);
      setPendingDelete(null);
    }
  }

  const headerLabel = (field: string) => t(columnHeaderKey(entity, field, ctx.exists));
  const pendingCount = pendingDelete ? ('id' in pendingDelete ? 1 : pendingDelete.ids.length) : 0;
  const pages = pageCount(total, state.pageSize);
  const colSpan = columns.length + 2;

  return (
    <Stack data-testid="entity-list">
      <Title order={3}>{t(`${entity.name}.title`)}</Title>
      <Group justify="space-between" wrap="wrap">
        <TextInput
          data-testid="entity-search"
          aria-label={t('entity.search')}
          placeholder={t('entity.searchPlaceholder')}
          value={search}
          maxLength={100}
          w={280}
          onChange={(event) => setSearch(event.currentTarget.value)}
        />
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
                        <Cell view={formatCell(entity, column, record[column.field], ctx)} />
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

      <Group justify="space-between" wrap="wrap">
        <Text size="sm" c="dimmed" data-testid="entity-total">
          {t('entity.total', { total })}
        </Text>
        <Group gap="sm">
          <Select
            aria-label={t('entity.pageSize')}
            data-testid="entity-page-size"
            w={90}
            allowDeselect={false}
            data={PAGE_SIZES.map((n) => String(n))}
            value={String(state.pageSize)}
            onChange={(value) => value && setState(withPageSize(state, Number(value)))}
          />
          <Pagination
            total={pages}
            value={Math.min(state.page, pages)}
            onChange={(page) => setState({ ...state, page })}
            size="sm"
          />
        </Group>
      </Group>

      <Modal
        opened={pendingDelete !== null}
        onClose={() => !deleting && setPendingDelete(null)}
        title={t('entity.confirmDeleteTitle')}
        centered
      >
        <Stack>
          <Text>{pendingCount > 1 ? t('entity.confirmDeleteMany', { count: pendingCount }) : t('entity.confirmDelete')}</Text>
          <Group justify="flex-end">
            <Button variant="default" data-testid="confirm-cancel" disabled={deleting} onClick={() => setPendingDelete(null)}>
              {t('entity.cancel')}
            </Button>
            <Button color="red" data-testid="confirm-ok" loading={deleting} onClick={() => void confirmDelete()}>
              {t('entity.confirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
