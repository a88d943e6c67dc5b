import { Button, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { apiPost } from '../../api/api-client.js';
import { useCurrentRoute } from '../../routes/current-route.js';
import { MenuPageHeading } from '../../shell/page-heading.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { OPENVPN_PATHS } from './openvpn-api.js';

interface CaInfo {
  subject: string;
  notBefore: number;
  notAfter: number;
  serial: string;
  fingerprint: string;
  certificate: string;
}

/**
 * CA settings (/system/caconfiguration): the device's certificate authority of the OpenVPN
 * server, its certificate to download, and a new authority (every client issued again).
 */
export default function CaConfigPage() {
  const { t, i18n } = useTranslation();
  const route = useCurrentRoute();
  const { data, refresh } = useStatusQuery<CaInfo>(OPENVPN_PATHS.ca, {}, 60_000);
  const canWrite = route?.permission === 'modify';

  function download() {
    if (!data) return;
    const url = URL.createObjectURL(new Blob([data.certificate], { type: 'application/x-pem-file' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'portico-openvpn-ca.crt';
    link.click();
    URL.revokeObjectURL(url);
  }

  async function regenerate() {
    if (!window.confirm(t('openvpnServer.ca.confirmRegenerate'))) return;
    const reply = await apiPost<{ msg: string }>(OPENVPN_PATHS.ca, { action: 'regenerate' }).catch(() => null);
    if (!reply?.success) return;
    showSuccessNotice(t(reply.data?.msg ?? 'msg.openvpn.caRegenerated'));
    refresh();
  }

  const rows: Array<[string, string]> = data
    ? [
        ['subject', data.subject],
        ['serial', data.serial],
        ['notBefore', instantText(data.notBefore, i18n.language)],
        ['notAfter', instantText(data.notAfter, i18n.language)],
        ['fingerprint', data.fingerprint],
      ]
    : [];
  return (
    <Stack gap="md">
      <MenuPageHeading />
      <Paper withBorder p="lg" radius="md" data-testid="ca-config">
        <Stack gap="sm">
          <Table>
            <Table.Tbody>
              {rows.map(([key, value]) => (
                <Table.Tr key={key}>
                  <Table.Th>{t(`openvpnServer.ca.${key}`)}</Table.Th>
                  <Table.Td data-testid={`ca-${key}`}>
                    <Text size="sm" style={{ wordBreak: 'break-all' }}>
                      {value}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Group>
            <Button variant="light" onClick={download} disabled={!data} data-testid="ca-download">
              {t('openvpnServer.ca.download')}
            </Button>
            <Button color="red" variant="light" onClick={() => void regenerate()} disabled={!canWrite} data-testid="ca-regenerate">
              {t('openvpnServer.ca.regenerate')}
            </Button>
          </Group>
        </Stack>
      </Paper>
    </Stack>
  );
}
