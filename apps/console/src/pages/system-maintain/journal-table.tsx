import { Button, Checkbox, Group, Table, Text, VisuallyHidden } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatTime, type JournalEntry } from './journal-model.js';
import { summaryText } from './journal-summary.js';

interface Props {
  items: readonly JournalEntry[];
  loading: boolean;
  selected: readonly JournalEntry[];
  /** The account may write: each row offers "Revert to this revision". */
  canRevert: boolean;
  onOpen: (entry: JournalEntry) => void;
  onSelect: (entry: JournalEntry, on: boolean) => void;
  onRevert: (entry: JournalEntry) => void;
}

function stop(event: { stopPropagation: () => void }) {
  event.stopPropagation();
}

/** The revisions of one page: a click on a row opens its changes. */
export function JournalTable({ items, loading, selected, canRevert, onOpen, onSelect, onRevert }: Props) {
  const { t, i18n } = useTranslation();
  const exists = (key: string) => i18n.exists(key);
  const formatAt = (at: number) => formatTime(at, i18n.language);
  return (
    <Table.ScrollContainer minWidth={680}>
      <Table striped highlightOnHover verticalSpacing="sm" data-testid="journal-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={40}>
              <VisuallyHidden>{t('maintain.history.selectColumn')}</VisuallyHidden>
            </Table.Th>
            <Table.Th>{t('maintain.history.time')}</Table.Th>
            <Table.Th>{t('maintain.history.user')}</Table.Th>
            <Table.Th>{t('maintain.history.source')}</Table.Th>
            <Table.Th>{t('maintain.history.summary')}</Table.Th>
            <Table.Th ta="right">{t('common.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.length === 0 && !loading && (
            <Table.Tr>
              <Table.Td colSpan={6}>
                <Text ta="center" c="dimmed" py="lg" data-testid="journal-empty">
                  {t('maintain.history.empty')}
                </Text>
              </Table.Td>
            </Table.Tr>
          )}
          {items.map((entry) => {
            const id = String(entry.id);
            return (
              <Table.Tr
                key={id}
                data-testid={`journal-row-${id}`}
                style={{ cursor: 'pointer' }}
                onClick={() => onOpen(entry)}
              >
                <Table.Td onClick={stop}>
                  <Checkbox
                    aria-label={t('maintain.history.select', { id })}
                    data-testid={`journal-select-${id}`}
                    checked={selected.some((e) => String(e.id) === id)}
                    onChange={(event) => onSelect(entry, event.currentTarget.checked)}
                  />
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatTime(entry.at, i18n.language)}</Table.Td>
                <Table.Td>{entry.user || '—'}</Table.Td>
                <Table.Td>{entry.sourceIp || '—'}</Table.Td>
                <Table.Td style={{ wordBreak: 'break-word' }} data-testid={`journal-summary-${id}`}>
                  {summaryText(entry.summary, t, exists, formatAt) || '—'}
                </Table.Td>
                <Table.Td onClick={stop}>
                  <Group gap="xs" justify="flex-end" wrap="nowrap">
                    <Button
                      size="xs"
                      variant="light"
                      data-testid={`journal-view-${id}`}
                      onClick={() => onOpen(entry)}
                    >
                      {t('maintain.history.view')}
                    </Button>
                    {canRevert && (
                      <Button
                        size="xs"
                        variant="light"
                        color="orange"
                        data-testid={`journal-revert-${id}`}
                        onClick={() => onRevert(entry)}
                      >
                        {t('maintain.history.revert')}
                      </Button>
                    )}
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
