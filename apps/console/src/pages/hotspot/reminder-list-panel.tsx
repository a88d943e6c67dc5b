import { Alert, Badge, Button, Center, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { StatusTable } from '../network-status/net-status-parts.js';
import { REMINDER_LIST_PATH, REMINDER_REFRESH_MS, reminderStateKey, type ReminderList, type ReminderState } from './reminder-list-api.js';

const STATE_COLOURS: Record<ReminderState, string> = { awaiting: 'orange', shown: 'green', withdrawn: 'gray' };

export interface ReminderListViewProps {
  /** null until the first answer. */
  data: ReminderList | null;
  /** The last read failed; the last list read stays on screen (the API client has shown why). */
  failed: boolean;
  onRefresh: () => void;
}

/**
 * The clients reminded of their expiry within the current interval. Addresses and user names
 * come from the device and are rendered as React text, never as markup.
 */
export function ReminderListView({ data, failed, onRefresh }: ReminderListViewProps) {
  const { t, i18n } = useTranslation();
  return (
    <Paper withBorder p="lg" radius="md" data-testid="reminder-list">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <Stack gap={2}>
            <Title order={4}>{t('hotspotReminderList.title')}</Title>
            <Text size="sm" c="dimmed">
              {t('hotspotReminderList.hint')}
            </Text>
          </Stack>
          <Button size="xs" variant="light" onClick={onRefresh} data-testid="reminder-refresh">
            {t('hotspotReminderList.refresh')}
          </Button>
        </Group>
        {failed && (
          <Alert color="yellow" variant="light" data-testid="reminder-unavailable">
            {t('hotspotReminderList.unavailable')}
          </Alert>
        )}
        {!data ? (
          <Center py="md">
            <Loader size="sm" aria-label={t('hotspotReminderList.loading')} />
          </Center>
        ) : data.items.length === 0 ? (
          <Text size="sm" c="dimmed" ta="center" py="md" data-testid="reminder-empty">
            {t('hotspotReminderList.empty')}
          </Text>
        ) : (
          <>
            <Text size="sm" c="dimmed" data-testid="reminder-total">
              {t('hotspotReminderList.total', { total: data.total })}
            </Text>
            <StatusTable
              testId="reminder-table"
              head={[t('hotspotReminderList.field.ipaddr'), t('hotspotReminderList.field.username'), t('hotspotReminderList.field.remindedAt'), t('hotspotReminderList.field.state')]}
              rows={data.items.map((entry) => ({
                key: `${entry.ipaddr}-${entry.remindedAt}`,
                cells: [
                  entry.ipaddr,
                  <span data-testid="reminder-username">{entry.username || '-'}</span>,
                  instantText(entry.remindedAt, i18n.language),
                  <Badge variant="light" color={STATE_COLOURS[entry.state] ?? 'gray'} data-testid="reminder-state">
                    {t(reminderStateKey(entry.state))}
                  </Badge>,
                ],
              }))}
            />
          </>
        )}
      </Stack>
    </Paper>
  );
}

/** The reminder list read from the device, again every 30 s and on demand. */
export function ReminderListPanel() {
  const { data, failed, refresh } = useStatusQuery<ReminderList>(REMINDER_LIST_PATH, {}, REMINDER_REFRESH_MS);
  return <ReminderListView data={data} failed={failed} onRefresh={refresh} />;
}
