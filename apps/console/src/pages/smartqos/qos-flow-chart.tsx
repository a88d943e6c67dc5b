import { Center, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Area, AreaChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartRange } from '@portico/schema';
import { sampleTimeText, timeTickText } from '../dashboard/load-chart-model.js';
import { directionRows, flowDomain, FLOW_SERIES, wanRows, type FlowChart } from './qos-flow-model.js';
import { CHART_FONT_SIZE, CHART_LEGEND_STYLE } from '../../shell/chart-style.js';

const COLORS: Record<string, string> = {
  priority: '#e03131',
  express: '#f08c00',
  normal: '#1c7ed6',
  bulk: '#868e96',
  limited: '#7950f2',
};
const WAN_COLORS = ['#12b886', '#fd7e14', '#228be6', '#be4bdb', '#fab005', '#15aabf', '#82c91e', '#fa5252'];
const HEIGHT = 220;

/** Smart QoS flow charts: upload and download by priority class, and traffic by WAN. */
export default function QosFlowCharts({ range, chart }: { range: ChartRange; chart: FlowChart | null }) {
  const { t } = useTranslation();
  const tick = (value: number) => timeTickText(range, value);
  const heading = (label: unknown) => (typeof label === 'number' ? sampleTimeText(label) : String(label));
  const unit = t('qos.chart.kbps');
  if (!chart || chart.points.length === 0) {
    return (
      <Center h={HEIGHT}>
        <Text c="dimmed" size="sm">
          {t('qos.chart.empty')}
        </Text>
      </Center>
    );
  }
  const byClass = (direction: 'up' | 'down') => {
    const rows = directionRows(chart, direction);
    return (
      <Stack gap={4}>
        <Text size="sm" fw={600}>
          {t(direction === 'up' ? 'qos.chart.upload' : 'qos.chart.download')} ({unit})
        </Text>
        <ResponsiveContainer width="100%" height={HEIGHT}>
          <AreaChart data={rows}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="t" type="number" scale="time" domain={flowDomain(range, rows)} tickFormatter={tick} minTickGap={24} fontSize={CHART_FONT_SIZE} />
            <YAxis fontSize={CHART_FONT_SIZE} />
            <Tooltip labelFormatter={heading} />
            <Legend wrapperStyle={CHART_LEGEND_STYLE} />
            {FLOW_SERIES.map((series) => (
              <Area
                key={series}
                type="monotone"
                dataKey={series}
                name={series === 'limited' ? t('qos.chart.limited') : t(`qos.class.${series}`)}
                stackId="flow"
                stroke={COLORS[series]}
                fill={COLORS[series]}
                isAnimationActive={false}
              />
            ))}
          </AreaChart>
        </ResponsiveContainer>
      </Stack>
    );
  };
  const wan = wanRows(chart);
  return (
    <Stack gap="md" data-testid="qos-flow-charts" data-points={chart.points.length}>
      {byClass('up')}
      {byClass('down')}
      <Text size="sm" fw={600}>
        {t('qos.chart.byWan')} ({unit})
      </Text>
      <ResponsiveContainer width="100%" height={HEIGHT}>
        <LineChart data={wan.rows}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="t" type="number" scale="time" domain={flowDomain(range, wan.rows)} tickFormatter={tick} minTickGap={24} fontSize={CHART_FONT_SIZE} />
          <YAxis fontSize={CHART_FONT_SIZE} />
          <Tooltip labelFormatter={heading} />
          <Legend wrapperStyle={CHART_LEGEND_STYLE} />
          {wan.wans.flatMap((name, i) => [
            <Line key={`${name}_rx`} dataKey={`${name}_rx`} name={`${name} ${t('qos.chart.download')}`} stroke={WAN_COLORS[i % WAN_COLORS.length]} dot={false} isAnimationActive={false} />,
            <Line key={`${name}_tx`} dataKey={`${name}_tx`} name={`${name} ${t('qos.chart.upload')}`} stroke={WAN_COLORS[i % WAN_COLORS.length]} strokeDasharray="4 2" dot={false} isAnimationActive={false} />,
          ])}
        </LineChart>
      </ResponsiveContainer>
    </Stack>
  );
}
