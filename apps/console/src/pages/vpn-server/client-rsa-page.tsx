import { Badge, Paper, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { MenuPageHeading } from '../../shell/page-heading.js';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { OPENVPN_PATHS, type OpenvpnClientRow } from './openvpn-api.js';

/**
 * Client key pairs (/system/clientrsa, spec §7 `rsa`): the clients of the device's PKI with
 * their certificate's serial and status. Keys are added, revoked and handed out (inside a
 * profile) on the OpenVPN server page.
 */
export default function ClientRsaPage() {
  const { t, i18n } = useTranslation();
  const { data } = useStatusQuery<{ items: OpenvpnClientRow[] }>(OPENVPN_PATHS.rsa, {}, 30_000);
  return (
    <Stack gap="md">
      <MenuPageHeading />
      <Paper withBorder p="lg" radius="md" data-testid="client-rsa">
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            {t('openvpnServer.ca.keys')}
          </Text>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('openvpnServer.clients.name')}</Table.Th>
                <Table.Th>{t('openvpnServer.ca.serial')}</Table.Th>
                <Table.Th>{t('openvpnServer.clients.status')}</Table.Th>
                <Table.Th>{t('openvpnServer.clients.issued')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(data?.items ?? []).map((c) => (
                <Table.Tr key={c.name}>
                  <Table.Td>{c.name}</Table.Td>
                  <Table.Td>{c.serial}</Table.Td>
                  <Table.Td>
                    <Badge color={c.status === 'valid' ? 'green' : 'red'}>{t(`openvpnServer.clients.${c.status}`)}</Badge>
                  </Table.Td>
                  <Table.Td>{instantText(c.issued, i18n.language)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
      </Paper>
    </Stack>
  );
}
