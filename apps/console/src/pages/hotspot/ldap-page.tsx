import { useState } from 'react';
import { Button, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { hotspotLdap, type AnyEntity } from '@portico/schema';
import { apiPost } from '../../api/api-client.js';
import { useCurrentRoute } from '../../routes/current-route.js';
import EntityFormPage from '../entity/entity-form-page.js';

/**
 * LDAP (/hotspot/ldap): the directory settings form, then a sign-in tried against the saved
 * settings (save first), which shows the DN the directory accepted or the guest's message.
 */
export default function LdapPage() {
  return (
    <Stack gap="md">
      <EntityFormPage entity={hotspotLdap as unknown as AnyEntity} mode="edit" />
      <LdapTestPanel />
    </Stack>
  );
}

function LdapTestPanel() {
  const { t } = useTranslation();
  const route = useCurrentRoute();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const canAct = route?.permission === 'modify' || route?.permission === 'access';

  async function run() {
    setBusy(true);
    setResult(null);
    const reply = await apiPost<{ dn: string }>('auth/ldaptest', { action: 'test', username, password }).catch(() => null);
    setBusy(false);
    if (!reply) return;
    // The DN is the directory's text: shown as text only.
    setResult(reply.success ? { ok: true, text: t('hotspotLdap.test.ok', { dn: reply.data?.dn ?? '' }) } : { ok: false, text: t(reply.msg ?? 'msg.requestFailed') });
  }

  return (
    <Paper withBorder p="lg" radius="md" data-testid="ldap-test">
      <Stack gap="sm">
        <Title order={4}>{t('hotspotLdap.test.title')}</Title>
        <Text size="sm" c="dimmed">
          {t('hotspotLdap.test.saveFirst')}
        </Text>
        <Group align="flex-end">
          <TextInput label={t('hotspotLdap.test.username')} value={username} onChange={(e) => setUsername(e.currentTarget.value)} maxLength={64} data-testid="ldap-test-username" />
          <PasswordInput label={t('hotspotLdap.test.password')} value={password} onChange={(e) => setPassword(e.currentTarget.value)} maxLength={256} data-testid="ldap-test-password" />
          <Button onClick={() => void run()} loading={busy} disabled={!canAct || !username || !password} data-testid="ldap-test-run">
            {t('hotspotLdap.test.run')}
          </Button>
        </Group>
        {result && (
          <Text c={result.ok ? 'green' : 'red'} data-testid="ldap-test-result">
            {result.text}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
