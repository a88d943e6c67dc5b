import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Box, Button, Group, LoadingOverlay, Modal, Pagination, Stack, Table, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LIST_ENTRY_TYPES, type ListEntryType, type ListPage } from '@portico/schema';
import { apiGet } from '../../api/api-client.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { columnHeaderKey, formatCell, rowId, type CellContext, type CellView } from '../entity/entity-columns.js';
import { deleteEntityRecords, type EntityRecord } from '../entity/entity-api.js';
import { pageAfterShrink, pageCount, readListState, withSearch, writeListState, type ListState } from '../entity/entity-list-query.js';
import EntityFormPage from '../entity/entity-form-page.js';
import {
  addAddressOf,
  editAddressOf,
  formTargetOf,
  hotspotListView,
  listParams,
  typedEntity,
  typedRouteOf,
  viewColumns,
  type HotspotListView,
} from './hotspot-list-model.js';

const ALL_TAB = 'all';

function isListEntryType(value: unknown): value is ListEntryType {
  return typeof value === 'string' && (LIST_ENTRY_TYPES as readonly string[]).includes(value);
}

function CellText({ view }: { view: CellView }) {
  if (view.kind === 'empty') return <Text span c="dimmed" size="sm">{view.text}</Text>;
  if (view.kind === 'tags') return <>{view.items.join(', ')}</>;
  return <>{view.text}</>;
}

export interface HotspotListTableProps {
  view: HotspotListView;
  items: readonly EntityRecord[];
  loading: boolean;
  onEdit(record: EntityRecord, id: string): void;
  onDelete(id: string): void;
}

/** The rows of a list view. Values are rendered as text by React, never as markup. */
export function HotspotListTable({ view, items, loading, onEdit, onDelete }: HotspotListTableProps) {
  const { t, i18n } = useTranslation();
  const ctx: CellContext = useMemo(() => ({ t: (key, options) => t(key, options ?? {}), exists: (key) => i18n.exists(key) }), [t, i18n]);
  const fields = viewColumns(view);
  const columns = (view.entity.list?.columns ?? []).filter((c) => fields.includes(c.field));
  return (
    <Table.ScrollContainer minWidth={520}>
      <Table striped highlightOnHover verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => (
              <Table.Th key={column.field}>{t(columnHeaderKey(view.entity, column.field, ctx.exists))}</Table.Th>
            ))}
            <Table.Th ta="right">{t('entity.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.length === 0 && !loading && (
            <Table.Tr>
              <Table.Td colSpan={columns.length + 1}>
                <Text ta="center" c="dimmed" py="lg" data-testid="entity-empty">
                  {t('entity.noData')}
                </Text>
              </Table.Td>
            </Table.Tr>
          )}
          {items.map((record, index) => {
            const id = rowId(record);
            return (
              <Table.Tr key={id || `row-${index}`} data-testid={`entity-row-${id}`}>
                {columns.map((column) => (
                  <Table.Td key={column.field}>
                    <CellText view={formatCell(view.entity, column, record[column.field], ctx)} />
                  </Table.Td>
                ))}
                <Table.Td>
                  <Group gap="xs" justify="flex-end" wrap="nowrap">
                    <Button size="xs" variant="light" disabled={!id} data-testid={`entity-edit-${id}`} onClick={() => onEdit(record, id)}>
                      {t('entity.edit')}
                    </Button>
                    <Button size="xs" variant="light" color="red" disabled={!id} data-testid={`entity-delete-${id}`} onClick={() => onDelete(id)}>
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
  );
}

/** The tabs of a list: every entry, then one per type (the typed sub-routes). */
export function HotspotListTabs({ view }: { view: HotspotListView }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Tabs
      value={view.type ?? ALL_TAB}
      onChange={(value) => value && navigate(isListEntryType(value) ? typedRouteOf(view.listRoute, value) : view.listRoute)}
    >
      <Tabs.List>
        <Tabs.Tab value={ALL_TAB} data-testid="hotspot-list-tab-all">
          {t('hotspotUpload.list.all')}
        </Tabs.Tab>
        {LIST_ENTRY_TYPES.map((type) => (
          <Tabs.Tab key={type} value={type} data-testid={`hotspot-list-tab-${type}`}>
            {t(`${view.entity.name}.option.type.${type}`)}
          </Tabs.Tab>
        ))}
      </Tabs.List>
    </Tabs>
  );
}

function HotspotListBody({ view }: { view: HotspotListView }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const { entity } = view;
  const state = useMemo(() => readListState(entity, params), [entity, params]);
  const [items, setItems] = useState<EntityRecord[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [reloadToken, setReloadToken] = useState(0);
  const [pendingDelete, setPendingDelete] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [search, setSearch] = useState(state.q);
  const [debouncedSearch] = useDebouncedValue(search, 300);
  const latestRequest = useRef(0);

  const setState = useCallback((next: ListState) => setParams(writeListState(entity, next), { replace: true }), [entity, setParams]);
  const stateRef = useRef(state);
  stateRef.current = state;
  useEffect(() => {
    const next = withSearch(stateRef.current, debouncedSearch);
    if (next !== stateRef.current) setState(next);
  }, [debouncedSearch, setState]);

  useEffect(() => {
    const request = ++latestRequest.current;
    setLoading(true);
    apiGet<ListPage<EntityRecord>>(entity.path, listParams(state, view.type))
      .then((page) => {
        if (request !== latestRequest.current) return;
        const shrunk = pageAfterShrink(state, page.total);
        if (shrunk !== null && page.items.length === 0 && page.total > 0) {
          setState({ ...state, page: shrunk });
          return;
        }
        setItems(page.items);
        setTotal(page.total);
      })
      .catch(() => undefined) // reported by the API client
      .finally(() => {
        if (request === latestRequest.current) setLoading(false);
      });
  }, [entity, state, view.type, reloadToken, setState]);

  async function confirmDelete() {
    if (!pendingDelete || deleting) return;
    setDeleting(true);
    try {
      const reply = await deleteEntityRecords(entity, { id: pendingDelete });
      if (reply.success) {
        showSuccessNotice(t('entity.deleted'));
        setReloadToken((n) => n + 1);
      }
    } catch {
      // Reported by the API client.
    } finally {
      setDeleting(false);
      setPendingDelete(null);
    }
  }

  // An entry is edited on its own type's sub-route, where the type is fixed.
  const edit = (record: EntityRecord, id: string) => {
    const type = isListEntryType(record.type) ? record.type : view.type;
    if (type) navigate(editAddressOf(view.listRoute, type, id));
  };
  const pages = pageCount(total, state.pageSize);
  const addTypes = view.type ? [view.type] : LIST_ENTRY_TYPES;

  return (
    <Stack>
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
          {addTypes.map((type) => (
            <Button key={type} data-testid={`hotspot-list-add-${type}`} onClick={() => navigate(addAddressOf(view.listRoute, type))}>
              {t('hotspotUpload.list.add', { type: t(`${entity.name}.option.type.${type}`) })}
            </Button>
          ))}
        </Group>
      </Group>
      <Box pos="relative">
        <LoadingOverlay visible={loading} zIndex={5} overlayProps={{ blur: 1 }} />
        <HotspotListTable view={view} items={items} loading={loading} onEdit={edit} onDelete={setPendingDelete} />
      </Box>
      <Group justify="space-between" wrap="wrap">
        <Text size="sm" c="dimmed" data-testid="entity-total">
          {t('entity.total', { total })}
        </Text>
        <Pagination total={pages} value={Math.min(state.page, pages)} onChange={(page) => setState({ ...state, page })} size="sm" />
      </Group>
      <Modal opened={pendingDelete !== null} onClose={() => !deleting && setPendingDelete(null)} title={t('entity.confirmDeleteTitle')} centered>
        <Stack>
          <Text>{t('entity.confirmDelete')}</Text>
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

/**
 * White and black lists (spec §2): the list of every entry, and on each typed sub-route
 * (/macedit, /ipedit, /domainedit) the entries of that type, added and edited with the type
 * fixed. Entries are added and edited on the typed sub-routes only.
 */
export default function HotspotListPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const [params] = useSearchParams();
  const view = hotspotListView(location.pathname);
  if (!view) return null;
  const target = view.type ? formTargetOf(params) : null;
  if (view.type && target) return <EntityFormPage entity={typedEntity(view.entity, view.type)} mode={target.mode} />;
  return (
    <Stack data-testid="hotspot-list">
      <Title order={3}>{t(`${view.entity.name}.title`)}</Title>
      <HotspotListTabs view={view} />
      <HotspotListBody key={location.pathname} view={view} />
    </Stack>
  );
}
