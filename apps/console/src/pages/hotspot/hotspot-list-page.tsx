import { useCallback, useMemo } from 'react';
import { Box, Button, Group, LoadingOverlay, Stack, Table, Tabs, Text } from '@mantine/core';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LIST_ENTRY_TYPES, type ListEntryType, type ListPage } from '@portico/schema';
import { apiGet } from '../../api/api-client.js';
import { columnHeaderKey, formatCell, rowId, type CellContext } from '../entity/entity-columns.js';
import type { EntityRecord } from '../entity/entity-api.js';
import type { ListState } from '../entity/entity-list-query.js';
import { useEntityListData } from '../entity/entity-list-data.js';
import { EntityCell, EntityDeleteConfirm, EntityListFooter, EntitySearchBox } from '../entity/entity-list-parts.js';
import EntityFormPage from '../entity/entity-form-page.js';
import { MenuPageHeading } from '../../shell/page-heading.js';
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
                    <EntityCell view={formatCell(view.entity, column, record[column.field], ctx)} />
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
  const { entity } = view;
  const load = useCallback((state: ListState) => apiGet<ListPage<EntityRecord>>(entity.path, listParams(state, view.type)), [entity, view.type]);
  const list = useEntityListData(entity, load);

  // An entry is edited on its own type's sub-route, where the type is fixed.
  const edit = (record: EntityRecord, id: string) => {
    const type = isListEntryType(record.type) ? record.type : view.type;
    if (type) navigate(editAddressOf(view.listRoute, type, id));
  };
  const addTypes = view.type ? [view.type] : LIST_ENTRY_TYPES;

  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <EntitySearchBox list={list} />
        <Group gap="sm">
          {addTypes.map((type) => (
            <Button key={type} data-testid={`hotspot-list-add-${type}`} onClick={() => navigate(addAddressOf(view.listRoute, type))}>
              {t('hotspotUpload.list.add', { type: t(`${entity.name}.option.type.${type}`) })}
            </Button>
          ))}
        </Group>
      </Group>
      <Box pos="relative">
        <LoadingOverlay visible={list.loading} zIndex={5} overlayProps={{ blur: 1 }} />
        <HotspotListTable view={view} items={list.items} loading={list.loading} onEdit={edit} onDelete={(id) => list.setPendingDelete({ id })} />
      </Box>
      <EntityListFooter list={list} />
      <EntityDeleteConfirm list={list} />
    </Stack>
  );
}

/**
 * White and black lists (spec §2): the list of every entry, and on each typed sub-route
 * (/macedit, /ipedit, /domainedit) the entries of that type, added and edited with the type
 * fixed. Entries are added and edited on the typed sub-routes only.
 */
export default function HotspotListPage() {
  const location = useLocation();
  const [params] = useSearchParams();
  const view = hotspotListView(location.pathname);
  if (!view) return null;
  const target = view.type ? formTargetOf(params) : null;
  if (view.type && target) return <EntityFormPage entity={typedEntity(view.entity, view.type)} mode={target.mode} />;
  return (
    <Stack data-testid="hotspot-list">
      <MenuPageHeading />
      <HotspotListTabs view={view} />
      <HotspotListBody key={location.pathname} view={view} />
    </Stack>
  );
}
