import { Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { WirelessSummary } from '@portico/schema';
import { useStatusQuery } from '../network-status/net-status-query.js';
import { StatusFrame, StatusTable } from '../network-status/net-status-parts.js';
import { useMenuTitle } from '../../routes/current-route.js';

const REFRESH_MS = 10_000;

function Figure(props: { label: string; value: number; testId: string }) {
  return (
    <Card withBorder padding="sm">
      <Text size="xs" c="dimmed">
        {props.label}
      </Text>
      <Text size="xl" fw={600} data-testid={props.testId}>
        {props.value}
      </Text>
    </Card>
  );
}

/**
 * Wireless status (/wirelessmanage/wirelessstatus): devices online, offline, waiting and
 * abnormal, stations per band, the channels in use with their load, and the busiest APs.
 */
export default function WirelessStatusPage() {
  const { t } = useTranslation();
  const menuTitle = useMenuTitle();
  const { data, failed } = useStatusQuery<WirelessSummary>('ac', {}, REFRESH_MS);
  return (
    <StatusFrame testId="wireless-status-page" title={menuTitle} failed={failed} loading={!data}>
      {data && (
        <Stack gap="md">
          <SimpleGrid cols={{ base: 2, sm: 4 }}>
            <Figure label={t('wireless.summary.online')} value={data.devices.online} testId="summary-online" />
            <Figure label={t('wireless.summary.offline')} value={data.devices.offline} testId="summary-offline" />
            <Figure label={t('wireless.summary.pending')} value={data.devices.pending} testId="summary-pending" />
            <Figure label={t('wireless.summary.abnormal')} value={data.devices.abnormal} testId="summary-abnormal" />
            <Figure label={t('wireless.summary.stations')} value={data.stations.total} testId="summary-stations" />
            <Figure label={t('wireless.summary.band2g')} value={data.stations.band2g} testId="summary-2g" />
            <Figure label={t('wireless.summary.band5g')} value={data.stations.band5g} testId="summary-5g" />
          </SimpleGrid>
          <Group align="flex-start" grow>
            <Stack gap="xs">
              <Title order={5}>{t('wireless.summary.channels')}</Title>
              <StatusTable
                testId="channel-table"
                head={[t('wireless.station.band'), t('wireless.summary.channel'), t('wireless.summary.devices'), t('wireless.summary.stations')]}
                rows={data.channels.map((c) => ({ key: `${c.band}-${c.channel}`, cells: [c.band, c.channel, c.devices, c.stations] }))}
              />
            </Stack>
            <Stack gap="xs">
              <Title order={5}>{t('wireless.summary.busiest')}</Title>
              <StatusTable
                testId="busiest-table"
                head={[t('wireless.field.name'), t('wireless.field.serial'), t('wireless.summary.stations')]}
                rows={data.busiest.map((d) => ({ key: d.serial, cells: [<span>{d.name || '-'}</span>, d.serial, d.stations] }))}
              />
            </Stack>
          </Group>
        </Stack>
      )}
    </StatusFrame>
  );
}
