import type { ReactNode } from 'react';
import { Alert, Center, Group, Loader, Pagination, Stack, Table, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { pageCount } from './net-status-query.js';
import { PageHeading } from '../../shell/page-heading.js';

/** A status page: its title, the filters, a notice when the last read failed, then the content. */
export function StatusFrame(props: { testId: string; title: string; failed: boolean; loading: boolean; filters?: ReactNode; children?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Stack gap="md" data-testid={props.testId}>
      <PageHeading title={props.title} />
      {props.filters && (
        <Group gap="sm" align="flex-end" wrap="wrap">
          {props.filters}
        </Group>
      )}
      {props.failed && (
        <Alert color="yellow" variant="light">
          {t('netStatus.unavailable')}
        </Alert>
      )}
      {props.loading ? (
        <Center py="xl">
          <Loader aria-label={t('netStatus.loading')} />
        </Center>
      ) : (
        props.children
      )}
    </Stack>
  );
}

/**
 * A table of device data. Cells are React text: a host name such as `<img onerror=…>` shows
 * as typed and never becomes markup.
 */
export function StatusTable(props: { testId: string; head: string[]; rows: { key: string; cells: ReactNode[] }[] }) {
  const { t } = useTranslation();
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped highlightOnHover data-testid={props.testId}>
        <Table.Thead>
          <Table.Tr>
            {props.head.map((h) => (
              <Table.Th key={h}>{h}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {props.rows.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={props.head.length}>
                <Text c="dimmed" ta="center" size="sm">
                  {t('netStatus.empty')}
                </Text>
              </Table.Td>
            </Table.Tr>
          ) : (
            props.rows.map((row) => (
              <Table.Tr key={row.key}>
                {row.cells.map((cell, i) => (
                  <Table.Td key={i} style={{ overflowWrap: 'anywhere' }}>
                    {cell}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function Pager(props: { total: number; page: number; pageSize: number; onPage: (page: number) => void }) {
  const { t } = useTranslation();
  return (
    <Group justify="space-between">
      <Text size="sm" c="dimmed" data-testid="status-total">
        {t('netStatus.pageOf', { total: props.total })}
      </Text>
      <Pagination size="sm" total={pageCount(props.total, props.pageSize)} value={props.page} onChange={props.onPage} />
    </Group>
  );
}

/** The free-text filter of a status list; a new search starts again at page 1 (the caller's onChange). */
export function StatusSearch(props: { value: string; onChange: (value: string) => void }) {
  const { t } = useTranslation();
  return (
    <TextInput
      aria-label={t('netStatus.search')}
      placeholder={t('netStatus.searchHint')}
      // Wide enough for the hint in every language.
      w={320}
      value={props.value}
      maxLength={64}
      onChange={(event) => props.onChange(event.currentTarget.value)}
    />
  );
}
