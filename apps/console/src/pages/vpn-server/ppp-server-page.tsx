import { Alert, Badge, Group, Paper, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { l2tpServer, pppoeServer, pptpServer, type AnyEntity, type PppServerKind, type PppServerStatus } from '@portico/schema';
import { apiPost } from '../../api/api-client.js';
import { useCurrentRoute } from '../../routes/current-route.js';
import EntityFormPage from '../entity/entity-form-page.js';
import { useStatusQuery } from '../network-status/net-status-query.js';
import { VpnSessionsTable } from './vpn-sessions-table.js';

const REFRESH_MS = 10_000;
const PPP_SESSION_COLUMNS = ['username', 'from', 'address', 'since', 'rx', 'tx'].map((key) => `pppServer.status.${key}`);

/** The daemon's status route of each PPP server (domains/ppp-server/ppp-server-routes.ts). */
const statusPath = (kind: PppServerKind) => `auth/${kind}/status`;

/**
 * A PPP server's page (/vpnserver/pptpservice, /vpnserver/l2tpservice, /hotspot/ppoeservice):
 * its settings form generated from the entity, its status (running or STOPPED), the online
 * users with kick-off, and the local accounts that must have their password set again.
 */
function PppServerPage({ entity, kind }: { entity: AnyEntity; kind: PppServerKind }) {
  return (
    <Stack gap="md">
      <EntityFormPage entity={entity} mode="edit" />
      <PppStatusPanel kind={kind} />
    </Stack>
  );
}

function PppStatusPanel({ kind }: { kind: PppServerKind }) {
  const { t } = useTranslation();
  const canWrite = useCurrentRoute()?.permission === 'modify';
  const { data, refresh } = useStatusQuery<PppServerStatus>(statusPath(kind), {}, REFRESH_MS);

  async function kick(ifname: string) {
    const reply = await apiPost(statusPath(kind), { action: 'kick', ifname }).catch(() => null);
    if (reply?.success) refresh();
  }

  return (
    <Paper withBorder p="lg" radius="md" data-testid="ppp-status">
      <Stack gap="sm">
        <Group>
          <Title order={4}>{t('pppServer.status.status')}</Title>
          {data && (
            <Badge color={data.running ? 'green' : 'gray'} data-testid="ppp-running">
              {data.running ? t('pppServer.status.running') : t('pppServer.status.stopped')}
            </Badge>
          )}
        </Group>
        {data && data.needPassword.length > 0 && (
          <Alert color="yellow" data-testid="ppp-need-password">
            {t('pppServer.status.needPassword', { names: data.needPassword.join(', ') })}
          </Alert>
        )}
        <Title order={5}>{t('pppServer.status.sessions')}</Title>
        <VpnSessionsTable
          testId="ppp-sessions"
          rows={(data?.sessions ?? []).map((s) => ({ ...s, key: s.ifname, name: s.username }))}
          labels={{ columns: PPP_SESSION_COLUMNS, kick: 'pppServer.status.kick' }}
          canWrite={canWrite}
          onKick={(s) => void kick(s.key)}
        />
      </Stack>
    </Paper>
  );
}

export function PptpServerPage() {
  return <PppServerPage entity={pptpServer as unknown as AnyEntity} kind="pptp" />;
}

export function L2tpServerPage() {
  return <PppServerPage entity={l2tpServer as unknown as AnyEntity} kind="l2tp" />;
}

export function PppoeServerPage() {
  return <PppServerPage entity={pppoeServer as unknown as AnyEntity} kind="pppoe" />;
}
