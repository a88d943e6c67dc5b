import { Badge, Button, Code, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatBytes, ipsecPeer, type AnyEntity, type IpsecStatus } from '@portico/schema';
import { apiPost } from '../../api/api-client.js';
import { useCurrentRoute } from '../../routes/current-route.js';
import EntityListPage from '../entity/entity-list-page.js';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';

const REFRESH_MS = 10_000;
export const IPSEC_PATHS = { status: 'auth/ipsec/status', log: 'auth/ipsec/log' } as const;

/**
 * IPsec server (/vpnserver/ipsecservice): the peers (list and forms generated from the entity),
 * the server's status with its online peers (kick off ends the IKE SA), the connections it
 * refused (wrong key or identity: "Auth Failed"), and its log. Text is shown as text only.
 */
export default function IpsecPage() {
  return (
    <Stack gap="md">
      <EntityListPage entity={ipsecPeer as unknown as AnyEntity} />
      <IpsecStatusPanel />
      <IpsecLogPanel />
    </Stack>
  );
}

function IpsecStatusPanel() {
  const { t, i18n } = useTranslation();
  const canWrite = useCurrentRoute()?.permission === 'modify';
  const { data, refresh } = useStatusQuery<IpsecStatus>(IPSEC_PATHS.status, {}, REFRESH_MS);

  async function kick(uniqueId: string) {
    const reply = await apiPost(IPSEC_PATHS.status, { action: 'kick', uniqueId }).catch(() => null);
    if (reply?.success) refresh();
  }

  return (
    <Paper withBorder p="lg" radius="md" data-testid="ipsec-status">
      <Stack gap="sm">
        <Group>
          <Title order={4}>{t('ipsecPeer.status.title')}</Title>
          {data && (
            <Badge color={data.running ? 'green' : 'gray'} data-testid="ipsec-running">
              {data.running ? t('ipsecPeer.status.running') : t('ipsecPeer.status.stopped')}
            </Badge>
          )}
        </Group>
        <Title order={5}>{t('ipsecPeer.status.sas')}</Title>
        <Table data-testid="ipsec-sas">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('ipsecPeer.field.name')}</Table.Th>
              {['peer', 'address', 'since', 'rx', 'tx'].map((key) => (
                <Table.Th key={key}>{t(`ipsecPeer.status.${key}`)}</Table.Th>
              ))}
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(data?.sas ?? []).map((sa) => (
              <Table.Tr key={sa.uniqueId} data-testid={`ipsec-sa-${sa.name}`}>
                <Table.Td>{sa.name}</Table.Td>
                <Table.Td>{sa.peer}</Table.Td>
                <Table.Td>{sa.address}</Table.Td>
                <Table.Td>{instantText(sa.since, i18n.language)}</Table.Td>
                <Table.Td>{formatBytes(sa.rx)}</Table.Td>
                <Table.Td>{formatBytes(sa.tx)}</Table.Td>
                <Table.Td>
                  <Button size="xs" variant="subtle" color="red" disabled={!canWrite} onClick={() => void kick(sa.uniqueId)}>
                    {t('ipsecPeer.status.kick')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {(data?.refusals.length ?? 0) > 0 && (
          <>
            <Title order={5}>{t('ipsecPeer.status.refusals')}</Title>
            <Table data-testid="ipsec-refusals">
              <Table.Thead>
                <Table.Tr>
                  {['at', 'address', 'reason'].map((key) => (
                    <Table.Th key={key}>{t(`ipsecPeer.status.${key}`)}</Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data!.refusals.map((refusal) => (
                  <Table.Tr key={`${refusal.address}-${refusal.at}`}>
                    <Table.Td>{instantText(refusal.at, i18n.language)}</Table.Td>
                    <Table.Td>{refusal.address}</Table.Td>
                    <Table.Td>{t(refusal.msg)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </>
        )}
      </Stack>
    </Paper>
  );
}

function IpsecLogPanel() {
  const { t } = useTranslation();
  const { data } = useStatusQuery<{ present: boolean; lines: string[] }>(IPSEC_PATHS.log, {}, REFRESH_MS);
  return (
    <Paper withBorder p="lg" radius="md" data-testid="ipsec-log">
      <Stack gap="sm">
        <Title order={4}>{t('ipsecPeer.status.log')}</Title>
        {data && data.lines.length > 0 ? <Code block>{data.lines.join('\n')}</Code> : <Text c="dimmed">{t('ipsecPeer.status.noLog')}</Text>}
      </Stack>
    </Paper>
  );
}
