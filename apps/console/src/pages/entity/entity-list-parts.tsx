import { Badge, Button, Group, Modal, Pagination, Select, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { CellView } from './entity-columns.js';
import { pageCount, PAGE_SIZES, withPageSize } from './entity-list-query.js';
import type { EntityListData } from './entity-list-data.js';

/** Pieces every list page of a collection shows the same way. Values are text, never markup. */

export function EntityCell({ view }: { view: CellView }) {
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

export function EntitySearchBox({ list }: { list: Pick<EntityListData, 'search' | 'setSearch'> }) {
  const { t } = useTranslation();
  return (
    <TextInput
      data-testid="entity-search"
      aria-label={t('entity.search')}
      placeholder={t('entity.searchPlaceholder')}
      value={list.search}
      maxLength={100}
      w={280}
      onChange={(event) => list.setSearch(event.currentTarget.value)}
    />
  );
}

/** The row count, the page size and the pages, under any paged list. */
export function ListFooter(props: {
  totalText: string;
  totalTestId: string;
  pageSizeLabel: string;
  pageSizeTestId?: string;
  pageSizes: readonly number[];
  pageSize: number;
  onPageSize(size: number): void;
  page: number;
  pages: number;
  onPage(page: number): void;
}) {
  return (
    <Group justify="space-between" wrap="wrap">
      <Text size="sm" c="dimmed" data-testid={props.totalTestId}>
        {props.totalText}
      </Text>
      <Group gap="sm">
        <Select
          aria-label={props.pageSizeLabel}
          data-testid={props.pageSizeTestId}
          w={90}
          allowDeselect={false}
          data={props.pageSizes.map((n) => String(n))}
          value={String(props.pageSize)}
          onChange={(value) => value && props.onPageSize(Number(value))}
        />
        <Pagination total={props.pages} value={Math.min(props.page, props.pages)} onChange={props.onPage} size="sm" />
      </Group>
    </Group>
  );
}

/** The footer of an entity list, whose page and size live in the address. */
export function EntityListFooter({ list }: { list: Pick<EntityListData, 'state' | 'setState' | 'total'> }) {
  const { t } = useTranslation();
  const { state, setState, total } = list;
  return (
    <ListFooter
      totalText={t('entity.total', { total })}
      totalTestId="entity-total"
      pageSizeLabel={t('entity.pageSize')}
      pageSizeTestId="entity-page-size"
      pageSizes={PAGE_SIZES}
      pageSize={state.pageSize}
      onPageSize={(size) => setState(withPageSize(state, size))}
      page={state.page}
      pages={pageCount(total, state.pageSize)}
      onPage={(page) => setState({ ...state, page })}
    />
  );
}

/** Asks before the rows in `list.pendingDelete` are deleted. */
export function EntityDeleteConfirm({ list }: { list: Pick<EntityListData, 'pendingDelete' | 'setPendingDelete' | 'deleting' | 'confirmDelete'> }) {
  const { t } = useTranslation();
  const { pendingDelete, setPendingDelete, deleting, confirmDelete } = list;
  const count = pendingDelete ? ('id' in pendingDelete ? 1 : pendingDelete.ids.length) : 0;
  return (
    <Modal opened={pendingDelete !== null} onClose={() => !deleting && setPendingDelete(null)} title={t('entity.confirmDeleteTitle')} centered>
      <Stack>
        <Text>{count > 1 ? t('entity.confirmDeleteMany', { count }) : t('entity.confirmDelete')}</Text>
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
  );
}
