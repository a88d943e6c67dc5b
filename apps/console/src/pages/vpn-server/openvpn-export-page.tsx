import { Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useMenuTitle } from '../../routes/current-route.js';
import { PageHeading } from '../../shell/page-heading.js';
import { OpenvpnClientsPanel } from './openvpn-page.js';

/** Export configuration (/vpnserver/openvpnservice/exportconf): the clients, each with its profile download. */
export default function OpenvpnExportPage() {
  const { t } = useTranslation();
  const menuTitle = useMenuTitle();
  return (
    <Stack gap="md">
      <PageHeading title={`${menuTitle} · ${t('openvpnServer.clients.export')}`} />
      <OpenvpnClientsPanel />
    </Stack>
  );
}
