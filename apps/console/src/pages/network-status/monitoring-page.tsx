import { lazy, Suspense, useEffect, useState } from 'react';
import { Badge, Card, Loader, Select, Stack, Text, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CHART_RANGE_KEYS, formatBytes, formatSpeed, type ChartRange, type Monitoring } from '@portico/schema';
import { rangeLabelKey } from '../dashboard/load-chart-model.js';
import { valueLabel } from '../../i18n/console-i18n.js';
import { useStatusQuery } from './net-status-query.js';
import { StatusFrame, StatusTable } from './net-status-parts.js';
import { useMenuTitle } from '../../routes/current-route.js';

const TrafficChart = lazy(() => import('./traffic-chart.js'));
const REFRESH_MS = 5000;

/** Monitoring: every interface's rates and totals, and the traffic chart of the chosen one. */
export default function MonitoringPage() {
  const { t } = useTranslation();
  const menuTitle = useMenuTitle();
  const [range, setRange] = useState<ChartRange>('5m');
  const [chosen, setChosen] = useState<string | null>(null);
  const { data, failed } = useStatusQuery<Monitoring>('status/monitoring', { range }, REFRESH_MS);

  // Fetch the chart code alongside the first figures.
  useEffect(() => {
    void import('./traffic-chart.js');
  }, []);

  const shown = data?.interfaces.find((i) => i.ifname === chosen) ?? data?.interfaces[0];

  const filters = (
    <Select
      label={t('netStatus.monitor.range')}
      value={range}
      onChange={(value) => value && setRange(value as ChartRange)}
      data={CHART_RANGE_KEYS.map((r) => ({ value: r, label: t(rangeLabelKey(r)) }))}
      allowDeselect={false}
    />
  );

  return (
    <StatusFrame testId="monitoring-page" title={menuTitle} failed={failed} loading={!data} filters={filters}>
      {data && (
        <Stack gap="md">
          <StatusTable
            testId="monitoring-table"
            head={[
              t('netStatus.monitor.interface'),
              t('netStatus.monitor.role'),
              t('netStatus.monitor.link'),
              t('netStatus.monitor.rxRate'),
              t('netStatus.monitor.txRate'),
              t('netStatus.monitor.rxBytes'),
              t('netStatus.monitor.txBytes'),
            ]}
            rows={data.interfaces.map((i) => ({
              key: i.ifname,
              cells: [
                <UnstyledButton onClick={() => setChosen(i.ifname)} fz="sm" c="inherit" fw={i.ifname === shown?.ifname ? 700 : 400}>
                  {i.ifname}
                </UnstyledButton>,
                valueLabel(t, 'networkInterface.option.role', i.role),
                <Badge color={i.status === 'up' ? 'teal' : 'red'} variant="light">
                  {t(`netStatus.monitor.${i.status}`)}
                </Badge>,
                formatSpeed(i.rx_rate),
                formatSpeed(i.tx_rate),
                formatBytes(i.rx_bytes),
                formatBytes(i.tx_bytes),
              ],
            }))}
          />
          {shown && (
            <Card withBorder radius="md" padding="md">
              <Text fw={600} mb="xs">
                {t('netStatus.monitor.chart', { name: shown.ifname })}
              </Text>
              <Suspense fallback={<Loader size="sm" />}>
                <TrafficChart range={range} points={shown.points} />
              </Suspense>
            </Card>
          )}
        </Stack>
      )}
    </StatusFrame>
  );
}
