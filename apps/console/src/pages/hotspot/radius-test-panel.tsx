import { useState } from 'react';
import { Button, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { apiPost } from '../../api/api-client.js';
import { showSuccessNotice } from '../../shell/notice.js';

/** What POST /api/auth/radiustest answers (daemon hotspot/radius/radius-routes.ts). */
export interface RadiusTestAnswer {
  accepted: boolean;
  rttMs: number;
}

export interface RadiusTestViewProps {
  busy: boolean;
  /** The last answer shown under the button; null before the first. */
  result: RadiusTestAnswer | null;
  onTest(username: string, password: string): void;
}

/**
 * The connectivity test of the RADIUS page: one Access-Request with the saved settings (spec
 * §5: save first) and a test account. A refusal (timeout, unreachable) is the API client's
 * notice; an answer shows whether the server accepted the account and how fast it answered.
 */
export function RadiusTestView({ busy, result, onTest }: RadiusTestViewProps) {
  const { t } = useTranslation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  return (
    <Paper withBorder p="lg" radius="md" maw={720} data-testid="radius-test">
      <Stack gap="sm">
        <Title order={4}>{t('hotspotRadius.test.button')}</Title>
        <Text size="sm" c="dimmed">
          {t('hotspotRadius.test.saveFirst')}
        </Text>
        <Group align="flex-end" grow>
          <TextInput label={t('hotspotRadius.test.username')} value={username} maxLength={64} onChange={(e) => setUsername(e.currentTarget.value)} data-testid="radius-test-username" />
          <PasswordInput label={t('hotspotRadius.test.password')} value={password} maxLength={128} onChange={(e) => setPassword(e.currentTarget.value)} data-testid="radius-test-password" />
        </Group>
        <Group>
          <Button size="sm" variant="light" loading={busy} onClick={() => onTest(username, password)} data-testid="radius-test-run">
            {t('hotspotRadius.test.button')}
          </Button>
        </Group>
        {result && (
          <Text size="sm" c={result.accepted ? 'green' : 'orange'} role="status" data-testid="radius-test-result">
            {t(result.accepted ? 'hotspotRadius.test.accepted' : 'hotspotRadius.test.rejected', { ms: result.rttMs })}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

/** The test panel with its call. */
export function RadiusTestPanel() {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<RadiusTestAnswer | null>(null);
  const onTest = (username: string, password: string) => {
    setBusy(true);
    setResult(null);
    apiPost<RadiusTestAnswer>('auth/radiustest', { action: 'test', ...(username ? { username } : {}), ...(password ? { password } : {}) })
      .then((reply) => {
        if (!reply.success || !reply.data) return;
        const answer = reply.data;
        setResult(answer);
        showSuccessNotice(t(answer.accepted ? 'hotspotRadius.test.accepted' : 'hotspotRadius.test.rejected', { ms: answer.rttMs }));
      })
      .catch(() => undefined) // the API client has shown why
      .finally(() => setBusy(false));
  };
  return <RadiusTestView busy={busy} result={result} onTest={onTest} />;
}
