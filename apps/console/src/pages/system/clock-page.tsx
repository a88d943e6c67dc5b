import { useEffect, useState } from 'react';
import { Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { systemTime, type AnyEntity, type SystemInfo } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';
import { useCurrentRoute } from '../../routes/current-route.js';
import { MenuPageHeading } from '../../shell/page-heading.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { EntityForm } from '../entity/entity-form.js';
import { deviceTimeText } from '../dashboard/dashboard-model.js';

/** `YYYY-MM-DDTHH:MM` of this browser's clock, for a datetime-local input. */
function browserNow(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * Time (/system/clockconfiguration): the device's clock and zone as it reports them, the time
 * settings (zone, NTP client, LAN NTP server), and the clock set by hand.
 */
export default function ClockPage() {
  const { t } = useTranslation();
  const route = useCurrentRoute();
  const canAct = route?.permission === 'modify' || route?.permission === 'access';
  const [info, setInfo] = useState<SystemInfo | null>(null);
  const [manual, setManual] = useState(browserNow);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const refresh = () => void apiGet<SystemInfo>('sysconf/system').then(setInfo, () => undefined);
  useEffect(refresh, []);

  async function setClock() {
    const ms = new Date(manual).getTime();
    if (!Number.isFinite(ms)) {
      setError(t('validation.manualTime'));
      return;
    }
    setBusy(true);
    const reply = await apiPost('sysconf/time/set', { action: 'set', time: Math.floor(ms / 1000) }).catch(() => null);
    setBusy(false);
    if (!reply) return;
    setError(reply.success ? null : reply.errors?.time ? t(reply.errors.time) : null);
    if (reply.success) {
      showSuccessNotice(t('system.time.setDone'));
      refresh();
    }
  }

  return (
    <Stack gap="md" maw={720}>
      <MenuPageHeading />
      <Paper withBorder p="lg" radius="md">
        <Group gap="xl">
          <Text data-testid="clock-now">
            {t('system.time.now')}: {info ? deviceTimeText(info.localtime) : '…'}
          </Text>
          <Text data-testid="clock-zone">
            {t('system.time.zone')}: {info?.timezone ?? '…'}
          </Text>
        </Group>
      </Paper>
      <Paper withBorder p="lg" radius="md">
        <EntityForm entity={systemTime as unknown as AnyEntity} mode="edit" id={null} onSaved={refresh} onCancel={refresh} />
      </Paper>
      <Paper withBorder p="lg" radius="md" data-testid="clock-manual">
        <Stack gap="sm">
          <Title order={4}>{t('system.time.manual')}</Title>
          <Text size="sm" c="dimmed">
            {t('system.time.manualHelp')}
          </Text>
          <Group align="flex-end">
            <TextInput
              type="datetime-local"
              label={t('system.time.manualField')}
              value={manual}
              onChange={(e) => setManual(e.currentTarget.value)}
              error={error}
              data-testid="clock-manual-value"
            />
            <Button variant="default" onClick={() => setManual(browserNow())}>
              {t('system.time.useBrowser')}
            </Button>
            <Button onClick={() => void setClock()} loading={busy} disabled={!canAct} data-testid="clock-manual-set">
              {t('system.time.set')}
            </Button>
          </Group>
        </Stack>
      </Paper>
    </Stack>
  );
}
