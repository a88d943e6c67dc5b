import { useState } from 'react';
import { Badge, Button, Group, Paper, Stack, Table, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { openvpnServer, OPENVPN_REMARK_MAX, type AnyEntity } from '@portico/schema';
import { apiPost } from '../../api/api-client.js';
import { useCurrentRoute } from '../../routes/current-route.js';
import { showSuccessNotice } from '../../shell/notice.js';
import EntityFormPage from '../entity/entity-form-page.js';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { VpnSessionsTable } from './vpn-sessions-table.js';
import { downloadProfile, OPENVPN_PATHS, type OpenvpnClientRow, type OpenvpnSessionRow } from './openvpn-api.js';

const REFRESH_MS = 10_000;
const OPENVPN_SESSION_COLUMNS = ['clients.name', 'sessions.from', 'sessions.address', 'sessions.since', 'sessions.rx', 'sessions.tx'].map((key) => `openvpnServer.${key}`);

/**
 * OpenVPN server (/vpnserver/openvpnservice): its settings form (generated from the entity),
 * its status and online clients with kick-off, and the client certificates: add by name,
 * download a profile, revoke, delete; and "obtain server key and certificate again".
 */
export default function OpenvpnPage() {
  return (
    <Stack gap="md">
      <EntityFormPage entity={openvpnServer as unknown as AnyEntity} mode="edit" />
      <OpenvpnStatusPanel />
      <OpenvpnClientsPanel />
    </Stack>
  );
}

function useCanWrite(): boolean {
  const route = useCurrentRoute();
  return route?.permission === 'modify';
}

function OpenvpnStatusPanel() {
  const { t } = useTranslation();
  const canWrite = useCanWrite();
  const { data, refresh } = useStatusQuery<{ running: boolean; sessions: OpenvpnSessionRow[] }>(OPENVPN_PATHS.status, {}, REFRESH_MS);

  async function kick(name: string) {
    const reply = await apiPost(OPENVPN_PATHS.status, { action: 'kick', name }).catch(() => null);
    if (reply?.success) refresh();
  }

  async function reissue() {
    const reply = await apiPost<{ msg: string }>(OPENVPN_PATHS.server, { action: 'reissue' }).catch(() => null);
    if (reply?.success) showSuccessNotice(t(reply.data?.msg ?? 'msg.openvpn.serverReissued'));
  }

  return (
    <Paper withBorder p="lg" radius="md" data-testid="openvpn-status">
      <Stack gap="sm">
        <Group justify="space-between">
          <Group>
            <Title order={4}>{t('openvpnServer.server.status')}</Title>
            {data && (
              <Badge color={data.running ? 'green' : 'gray'} data-testid="openvpn-running">
                {data.running ? t('openvpnServer.server.running') : t('openvpnServer.server.stopped')}
              </Badge>
            )}
          </Group>
          <Button variant="light" onClick={() => void reissue()} disabled={!canWrite} data-testid="openvpn-reissue">
            {t('openvpnServer.server.reissue')}
          </Button>
        </Group>
        <Title order={5}>{t('openvpnServer.sessions.title')}</Title>
        <VpnSessionsTable
          testId="openvpn-sessions"
          rows={(data?.sessions ?? []).map((s) => ({ ...s, key: `${s.name}-${s.from}` }))}
          labels={{ columns: OPENVPN_SESSION_COLUMNS, kick: 'openvpnServer.sessions.kick' }}
          canWrite={canWrite}
          onKick={(s) => void kick(s.name)}
        />
      </Stack>
    </Paper>
  );
}

export function OpenvpnClientsPanel() {
  const { t, i18n } = useTranslation();
  const canWrite = useCanWrite();
  const { data, refresh } = useStatusQuery<{ items: OpenvpnClientRow[] }>(OPENVPN_PATHS.clients, {}, REFRESH_MS);
  const [name, setName] = useState('');
  const [remark, setRemark] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function add() {
    setError(null);
    const reply = await apiPost(OPENVPN_PATHS.clients, { action: 'add', name, remark }).catch(() => null);
    if (!reply) return;
    if (!reply.success) {
      setError(t(reply.errors?.name ?? reply.msg ?? 'msg.reviewFields'));
      return;
    }
    setName('');
    setRemark('');
    refresh();
  }

  async function act(action: 'revoke' | 'delete', client: string) {
    if (action === 'revoke' && !window.confirm(t('openvpnServer.clients.confirmRevoke', { name: client }))) return;
    const reply = await apiPost<{ msg?: string }>(OPENVPN_PATHS.clients, { action, name: client }).catch(() => null);
    if (!reply?.success) return;
    if (reply.data?.msg) showSuccessNotice(t(reply.data.msg));
    refresh();
  }

  return (
    <Paper withBorder p="lg" radius="md" data-testid="openvpn-clients">
      <Stack gap="sm">
        <Title order={4}>{t('openvpnServer.clients.title')}</Title>
        <Group align="flex-end">
          <TextInput label={t('openvpnServer.clients.name')} value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={32} error={error} data-testid="openvpn-client-name" />
          <TextInput label={t('openvpnServer.clients.remark')} value={remark} onChange={(e) => setRemark(e.currentTarget.value)} maxLength={OPENVPN_REMARK_MAX} data-testid="openvpn-client-remark" />
          <Button onClick={() => void add()} disabled={!canWrite || name === ''} data-testid="openvpn-client-add">
            {t('openvpnServer.clients.add')}
          </Button>
        </Group>
        <Table data-testid="openvpn-client-list">
          <Table.Thead>
            <Table.Tr>
              {['name', 'remark', 'status', 'issued'].map((key) => (
                <Table.Th key={key}>{t(`openvpnServer.clients.${key}`)}</Table.Th>
              ))}
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(data?.items ?? []).map((c) => (
              <Table.Tr key={c.name} data-testid={`openvpn-client-${c.name}`}>
                <Table.Td>{c.name}</Table.Td>
                <Table.Td>{c.remark}</Table.Td>
                <Table.Td>
                  <Badge color={c.status === 'valid' ? 'green' : 'red'}>{t(`openvpnServer.clients.${c.status}`)}</Badge>
                </Table.Td>
                <Table.Td>{instantText(c.issued, i18n.language)}</Table.Td>
                <Table.Td>
                  <Group gap="xs">
                    <Button size="xs" variant="light" disabled={!canWrite || c.status !== 'valid'} onClick={() => void downloadProfile(c.name)} data-testid={`openvpn-export-${c.name}`}>
                      {t('openvpnServer.clients.export')}
                    </Button>
                    <Button size="xs" variant="light" color="orange" disabled={!canWrite || c.status !== 'valid'} onClick={() => void act('revoke', c.name)} data-testid={`openvpn-revoke-${c.name}`}>
                      {t('openvpnServer.clients.revoke')}
                    </Button>
                    <Button size="xs" variant="subtle" color="red" disabled={!canWrite} onClick={() => void act('delete', c.name)}>
                      {t('openvpnServer.clients.delete')}
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Stack>
    </Paper>
  );
}
