import { lazy, Suspense, useCallback, useRef, useState } from 'react';
import { Loader, Paper, SegmentedControl, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CHART_RANGE_KEYS, qosBase, type AnyEntity, type ChartRange } from '@portico/schema';
import { apiGet } from '../../api/api-client.js';
import { usePolling } from '../dashboard/use-polling.js';
import EntityFormPage from '../entity/entity-form-page.js';
import { FLOW_REFRESH_MS, type FlowChart } from './qos-flow-model.js';
import { QosIspPanel } from './qos-isp-panel.js';

// recharts stays out of this page's own chunk.
const QosFlowCharts = lazy(() => import('./qos-flow-chart.js'));

/**
 * Smart QoS base page (/smartqos/qosbase): the switches, the flow charts (spec §9 ranges) by
 * priority class and by WAN, refreshed every 5 seconds, and the operator definition files.
 */
export default function QosBasePage() {
  const { t } = useTranslation();
  const [range, setRange] = useState<ChartRange>('5m');
  const [chart, setChart] = useState<FlowChart | null>(null);
  const rangeRef = useRef(range);
  rangeRef.current = range;

  usePolling(
    useCallback(async () => {
      const asked = rangeRef.current;
      const reply = await apiGet<FlowChart>('flow/chart', { range: asked });
      if (asked === rangeRef.current) setChart(reply);
    }, []),
    FLOW_REFRESH_MS,
  );

  const choose = (value: string) => {
    setRange(value as ChartRange);
    setChart(null);
    void apiGet<FlowChart>('flow/chart', { range: value }).then((reply) => {
      if (value === rangeRef.current) setChart(reply);
    }, () => undefined);
  };

  return (
    <Stack gap="md">
      <EntityFormPage entity={qosBase as unknown as AnyEntity} mode="edit" />
      <Paper withBorder p="md">
        <Stack gap="sm">
          <Title order={4}>{t('qos.chart.title')}</Title>
          <SegmentedControl
            value={range}
            onChange={choose}
            aria-label={t('qos.chart.range')}
            data={CHART_RANGE_KEYS.map((key) => ({ value: key, label: t(`qos.chart.ranges.${key}`) }))}
          />
          <Suspense fallback={<Loader size="sm" />}>
            <QosFlowCharts range={range} chart={chart} />
          </Suspense>
        </Stack>
      </Paper>
      <QosIspPanel />
    </Stack>
  );
}
