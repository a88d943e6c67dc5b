import { useState } from 'react';
import { Badge, Group, Paper, Stack, Switch, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import {
  entityTitleKey,
  fieldLabelKey,
  fieldRows,
  optionLabelKey,
  valueView,
  visibleRows,
  type ChangeAction,
  type FieldRow,
  type FieldStatus,
  type JournalChange,
} from './journal-model.js';

const ACTION_COLOR: Record<ChangeAction, string> = { add: 'teal', update: 'blue', delete: 'red' };

/** Cell tint per row status; unchanged and secret rows stay plain. */
const STATUS_BG: Partial<Record<FieldStatus, string>> = {
  added: 'var(--mantine-color-teal-light)',
  removed: 'var(--mantine-color-red-light)',
  changed: 'var(--mantine-color-yellow-light)',
};

type Exists = (key: string) => boolean;

function Value({ entity, field, value, present }: { entity: string; field: string; value: unknown; present: boolean }) {
  const { t, i18n } = useTranslation();
  const view = valueView(value, present);
  switch (view.kind) {
    case 'absent':
      return (
        <Text span size="sm" c="dimmed" aria-label={t('maintain.change.absent')}>
          —
        </Text>
      );
    case 'empty':
      return (
        <Text span size="sm" c="dimmed" fs="italic">
          {t('maintain.change.empty')}
        </Text>
      );
    case 'redacted':
      return (
        <Text span size="sm" c="dimmed" fs="italic" data-redacted="true">
          {t('maintain.change.redacted')}
        </Text>
      );
    case 'bool':
      return (
        <Text span size="sm">
          {t(view.value ? 'common.yes' : 'common.no')}
        </Text>
      );
    default: {
      const optionKey = optionLabelKey(entity, field, value, (key) => i18n.exists(key));
      return (
        <Text span size="sm" style={{ wordBreak: 'break-word' }}>
          {optionKey ? t(optionKey) : view.text}
        </Text>
      );
    }
  }
}

function FieldRowView({ entity, row, exists, inUpdate }: { entity: string; row: FieldRow; exists: Exists; inUpdate: boolean }) {
  const { t } = useTranslation();
  const labelKey = fieldLabelKey(entity, row.field, exists);
  const tint = STATUS_BG[row.status];
  return (
    <Table.Tr data-status={row.status}>
      <Table.Td>
        <Text span size="sm" fw={500}>
          {labelKey ? t(labelKey) : row.field}
        </Text>
        {/* In an added or deleted record every field is new or gone: only updates say so. */}
        {(row.status === 'secret' || (inUpdate && (row.status === 'added' || row.status === 'removed'))) && (
          <Text size="xs" c="dimmed">
            {t(`maintain.change.status.${row.status}`)}
          </Text>
        )}
      </Table.Td>
      <Table.Td bg={row.status === 'changed' || row.status === 'removed' ? tint : undefined}>
        <Value entity={entity} field={row.field} value={row.before} present={row.hasBefore} />
      </Table.Td>
      <Table.Td bg={row.status === 'changed' || row.status === 'added' ? tint : undefined}>
        <Value entity={entity} field={row.field} value={row.after} present={row.hasAfter} />
      </Table.Td>
    </Table.Tr>
  );
}

function ChangeBlock({ change, index, showUnchanged }: { change: JournalChange; index: number; showUnchanged: boolean }) {
  const { t, i18n } = useTranslation();
  const exists: Exists = (key) => i18n.exists(key);
  const titleKey = entityTitleKey(change.entity, exists);
  const rows = fieldRows(change);
  const shown = visibleRows(rows, showUnchanged);
  const hidden = rows.length - shown.length;
  return (
    <Paper withBorder p="sm" data-testid={`journal-change-${index}`} data-entity={change.entity} data-action={change.action}>
      <Group gap="xs" mb="xs" wrap="wrap">
        <Badge color={ACTION_COLOR[change.action]} variant="light" tt="none">
          {t(`maintain.change.action.${change.action}`)}
        </Badge>
        <Text fw={600}>{titleKey ? t(titleKey) : change.entity}</Text>
        {change.id !== null && (
          <Text size="sm" c="dimmed">
            {t('maintain.change.record', { id: String(change.id) })}
          </Text>
        )}
      </Group>
      {shown.length > 0 ? (
        <Table.ScrollContainer minWidth={420}>
          <Table withTableBorder={false} verticalSpacing={6} layout="fixed">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w="30%">{t('maintain.change.field')}</Table.Th>
                <Table.Th>{t('maintain.change.before')}</Table.Th>
                <Table.Th>{t('maintain.change.after')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((row) => (
                <FieldRowView key={row.field} entity={change.entity} row={row} exists={exists} inUpdate={change.action === 'update'} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : (
        <Text size="sm" c="dimmed">
          {t('maintain.change.noFieldChanges')}
        </Text>
      )}
      {hidden > 0 && (
        <Text size="xs" c="dimmed" mt={4}>
          {t('maintain.change.unchangedHidden', { count: hidden })}
        </Text>
      )}
    </Paper>
  );
}

/** The changes of a revision or of a diff, each as a field-by-field before → after table. */
export function JournalChangesView({ changes }: { changes: readonly JournalChange[] }) {
  const { t } = useTranslation();
  const [showUnchanged, setShowUnchanged] = useState(false);
  if (changes.length === 0) {
    return (
      <Text c="dimmed" data-testid="journal-changes">
        {t('maintain.change.none')}
      </Text>
    );
  }
  return (
    <Stack gap="md" data-testid="journal-changes">
      <Switch
        label={t('maintain.change.showUnchanged')}
        checked={showUnchanged}
        onChange={(event) => setShowUnchanged(event.currentTarget.checked)}
        data-testid="journal-show-unchanged"
      />
      {changes.map((change, index) => (
        <ChangeBlock key={`${index}-${change.entity}-${String(change.id)}`} change={change} index={index} showUnchanged={showUnchanged} />
      ))}
    </Stack>
  );
}
