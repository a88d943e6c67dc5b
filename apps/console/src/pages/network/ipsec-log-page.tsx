import { useCallback, useEffect, useState } from 'react';
import { Alert, Button, Code, Group, Stack, Text } from '@mantine/core';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { IpsecLog } from '@portico/schema';
import { apiGet } from '../../api/api-client.js';
import { PageHeading } from '../../shell/page-heading.js';

export const IPSEC_LOG_PATH = 'vpnclient/ipseclog';
const VPN_CLIENT_ROUTE = '/netconf/vpnclient';

/**
 * The IPsec client's log (/netconf/vpnclient/ipseclog): the newest lines of strongSwan's IKE
 * log as the daemon reads it, shown as text, never markup (peer names and identities are
 * the remote side's words).
 */
export default function IpsecLogPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [log, setLog] = useState<IpsecLog | null>(null);
  const [loading, setLoading] = useState(false);

  const load = useCallback(() => {
    setLoading(true);
    apiGet<IpsecLog>(IPSEC_LOG_PATH)
      .then(setLog)
      .catch(() => undefined) // the API client has reported it
      .finally(() => setLoading(false));
  }, []);
  useEffect(load, [load]);

  return (
    <Stack data-testid="ipsec-log">
      <PageHeading title={t('vpnClient.link.ipseclog')} />
      <Group>
        <Button variant="default" onClick={() => navigate(VPN_CLIENT_ROUTE)}>
          {t('entity.back')}
        </Button>
        <Button onClick={load} loading={loading} data-testid="ipsec-log-refresh">
          {t('vpnClient.log.refresh')}
        </Button>
      </Group>
      {log?.source === 'simulated' && (
        <Alert color="gray" variant="light">
          {t('vpnClient.log.simulated')}
        </Alert>
      )}
      {log?.source === 'unavailable' && <Text c="dimmed">{t('vpnClient.log.unavailable')}</Text>}
      {log && log.source !== 'unavailable' && log.lines.length === 0 && (
        <Text c="dimmed" data-testid="ipsec-log-empty">
          {t('vpnClient.log.empty')}
        </Text>
      )}
      {log?.truncated && (
        <Text size="sm" c="dimmed">
          {t('vpnClient.log.truncated')}
        </Text>
      )}
      {log && log.lines.length > 0 && (
        <Code block data-testid="ipsec-log-lines">
          {log.lines.join('\n')}
        </Code>
      )}
    </Stack>
  );
}
