import { useState } from 'react';
import { Button, Group, Paper, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { netParam, remoteSyslog, systemHost, type AnyEntity } from '@portico/schema';
import { apiPost } from '../../api/api-client.js';
import { useCurrentRoute } from '../../routes/current-route.js';
import { MenuPageHeading } from '../../shell/page-heading.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { EntityForm } from '../entity/entity-form.js';

const none = () => undefined;

/**
 * Network parameters (/system/networkparameter): the device's host name, the kernel's TCP/IP
 * settings and remote logging (RFC 5424 to a syslog server), each saved on its own, with a
 * test message sent to the saved server.
 */
export default function NetworkParameterPage() {
  const { t } = useTranslation();
  const route = useCurrentRoute();
  const canAct = route?.permission === 'modify' || route?.permission === 'access';
  const [busy, setBusy] = useState(false);

  async function test() {
    setBusy(true);
    const reply = await apiPost<{ server: string }>('sysconf/syslog/test', { action: 'test' }).catch(() => null);
    setBusy(false);
    if (reply?.success) showSuccessNotice(t('system.syslog.testDone', { server: reply.data?.server ?? '' }));
  }

  return (
    <Stack gap="md" maw={720}>
      <MenuPageHeading />
      <Paper withBorder p="lg" radius="md" data-testid="hostname-form">
        <Stack gap="sm">
          <Title order={4}>{t('systemHost.title')}</Title>
          <EntityForm entity={systemHost as unknown as AnyEntity} mode="edit" id={null} onSaved={none} onCancel={none} />
        </Stack>
      </Paper>
      <Paper withBorder p="lg" radius="md" data-testid="netparam-form">
        <EntityForm entity={netParam as unknown as AnyEntity} mode="edit" id={null} onSaved={none} onCancel={none} />
      </Paper>
      <Paper withBorder p="lg" radius="md" data-testid="syslog-form">
        <Stack gap="sm">
          <Title order={4}>{t('remoteSyslog.title')}</Title>
          <EntityForm entity={remoteSyslog as unknown as AnyEntity} mode="edit" id={null} onSaved={none} onCancel={none} />
          <Group>
            <Button variant="default" onClick={() => void test()} loading={busy} disabled={!canAct} data-testid="syslog-test">
              {t('system.syslog.test')}
            </Button>
          </Group>
        </Stack>
      </Paper>
    </Stack>
  );
}
