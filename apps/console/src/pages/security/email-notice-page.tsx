import { useState } from 'react';
import { Button, Group, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { emailRecipient, emailServer, type AnyEntity, type EmailNoticeStatus, type EmailTestResult } from '@portico/schema';
import { apiPost } from '../../api/api-client.js';
import { useCurrentRoute } from '../../routes/current-route.js';
import EntityListPage from '../entity/entity-list-page.js';
import { EntityForm } from '../entity/entity-form.js';
import { formatDateTime } from '../entity/entity-columns.js';
import { useStatusQuery } from '../network-status/net-status-query.js';

export const EMAIL_PATHS = { test: 'sysconf/emailinfo/test', status: 'sysconf/emailinfo/status' } as const;
const REFRESH_MS = 10_000;

/**
 * E-mail notice (/security/emailnotice): the recipients (list and forms generated from the
 * entity, which events each is told about), the SMTP server settings, a test message sent with
 * the saved settings that shows whether the server took it or its error, and the outgoing
 * queue with the latest results. Server texts are shown as text only.
 */
export default function EmailNoticePage() {
  return (
    <Stack gap="md">
      <EntityListPage entity={emailRecipient as unknown as AnyEntity} />
      <EmailServerPanel />
      <EmailTestPanel />
      <EmailQueuePanel />
    </Stack>
  );
}

function EmailServerPanel() {
  const { t } = useTranslation();
  // Cancel puts the saved values back: the form is made again from the server.
  const [generation, setGeneration] = useState(0);
  return (
    <Paper withBorder p="lg" radius="md" maw={720} data-testid="email-server">
      <Stack gap="sm">
        <Title order={4}>{t('emailServer.title')}</Title>
        <EntityForm key={generation} entity={emailServer as unknown as AnyEntity} mode="edit" id={null} onSaved={() => undefined} onCancel={() => setGeneration((g) => g + 1)} />
      </Stack>
    </Paper>
  );
}

function EmailTestPanel() {
  const { t } = useTranslation();
  const route = useCurrentRoute();
  const canAct = route?.permission === 'modify' || route?.permission === 'access';
  const [address, setAddress] = useState('');
  const [busy, setBusy] = useState(false);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);

  async function run() {
    setBusy(true);
    setResult(null);
    setFieldError(null);
    const reply = await apiPost<EmailTestResult>(EMAIL_PATHS.test, { action: 'test', address }).catch(() => null);
    setBusy(false);
    if (!reply) return;
    if (!reply.success) {
      const error = reply.errors?.address;
      if (error) setFieldError(t(error));
      else setResult({ ok: false, text: t(reply.msg ?? 'common.requestFailed') });
      return;
    }
    const data = reply.data;
    if (!data) return;
    setResult(data.delivered ? { ok: true, text: t('emailServer.test.delivered', { address }) } : { ok: false, text: t('emailServer.test.failed', { error: data.error }) });
  }

  return (
    <Paper withBorder p="lg" radius="md" maw={720} data-testid="email-test">
      <Stack gap="sm">
        <Title order={4}>{t('emailServer.test.title')}</Title>
        <Text size="sm" c="dimmed">
          {t('emailServer.test.saveFirst')}
        </Text>
        <Group align="flex-end">
          <TextInput
            label={t('emailServer.test.address')}
            value={address}
            maxLength={254}
            error={fieldError}
            onChange={(e) => setAddress(e.currentTarget.value)}
            data-testid="email-test-address"
          />
          <Button onClick={() => void run()} loading={busy} disabled={!canAct || address === ''} data-testid="email-test-run">
            {t('emailServer.test.run')}
          </Button>
        </Group>
        {result && (
          <Text c={result.ok ? 'green' : 'red'} role="status" data-testid="email-test-result">
            {result.text}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

function EmailQueuePanel() {
  const { t } = useTranslation();
  const { data } = useStatusQuery<EmailNoticeStatus>(EMAIL_PATHS.status, {}, REFRESH_MS);
  const eventLabel = (event: unknown) => (event === 'test' ? t('emailServer.queue.testEvent') : t(`emailRecipient.option.events.${String(event)}`));
  return (
    <Paper withBorder p="lg" radius="md" data-testid="email-queue">
      <Stack gap="sm">
        <Title order={4}>{t('emailServer.queue.title')}</Title>
        {data && (
          <Group gap="lg">
            <Text size="sm" data-testid="email-queue-waiting">
              {t('emailServer.queue.waiting', { count: data.waiting })}
            </Text>
            <Text size="sm">{t('emailServer.queue.sent', { count: data.sent })}</Text>
            <Text size="sm">{t('emailServer.queue.dropped', { count: data.dropped + data.givenUp })}</Text>
            {data.lastError !== '' && (
              <Text size="sm" c="red">
                {t('emailServer.queue.lastError', { error: data.lastError })}
              </Text>
            )}
          </Group>
        )}
        <Table data-testid="email-results">
          <Table.Tbody>
            {(data?.results ?? []).map((entry, index) => (
              <Table.Tr key={`${entry.time}-${index}`}>
                <Table.Td>{formatDateTime(entry.time) ?? ''}</Table.Td>
                <Table.Td>{entry.key ? t(entry.key, { ...entry.values, event: eventLabel(entry.values?.event) }) : (entry.text ?? '')}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Stack>
    </Paper>
  );
}
