import { Box, Center, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatSpeed, type ChartRange, type LoadSeries } from '@portico/schema';
import { chartPoints, sampleTimeText, timeDomain, timeTickText } from './load-chart-model.js';
import { percentText } from './dashboard-model.js';
import { CHART_FONT_SIZE, CHART_LEGEND_STYLE } from '../../shell/chart-style.js';

/**
 * The dashboard's load chart. It is the only module that imports recharts and is loaded
 * lazily, so the chart library stays out of the dashboard's own chunk.
 */

const COLORS = {
  cpu: '#228be6',
  memory: '#7950f2',
  rx: '#12b886',
  tx: '#fd7e14',
} as const;

const CHART_HEIGHT = 200;

interface LoadChartProps {
  range: ChartRange;
  series: LoadSeries | null;
}

export default function LoadChart({ range, series }: LoadChartProps) {
  const { t } = useTranslation();
  const points = chartPoints(series?.points ?? []);
  const domain = timeDomain(range, points);
  const tick = (value: number) => timeTickText(range, value);
  const heading = (label: unknown) => (typeof label === 'number' ? sampleTimeText(label) : String(label));

  if (points.length === 0) {
    return (
      <Center h={CHART_HEIGHT} data-testid="load-chart" data-points="0">
        <Text c="dimmed" size="sm">
          {t('dashboard.load.empty')}
        </Text>
      </Center>
    );
  }

  const xAxis = (
    <XAxis
      dataKey="t"
      type="number"
      scale="time"
      domain={domain}
      tickFormatter={tick}
      minTickGap={24}
      fontSize={CHART_FONT_SIZE}
    />
  );

  return (
    <Stack gap="xs" data-testid="load-chart" data-points={points.length}>
      <Text size="sm" fw={600}>
        {t('dashboard.load.usage')}
      </Text>
      <Box h={CHART_HEIGHT}>
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={points} margin={{ top: 4, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            {xAxis}
            <YAxis domain={[0, 100]} tickFormatter={(v: number) => `${v}%`} width={44} fontSize={CHART_FONT_SIZE} />
            <Tooltip labelFormatter={heading} formatter={(value) => percentText(Number(value))} />
            <Legend wrapperStyle={CHART_LEGEND_STYLE} />
            <Line type="monotone" dataKey="cpu" name={t('dashboard.load.cpu')} stroke={COLORS.cpu} dot={false} isAnimationActive={false} />
            <Line
              type="monotone"
              dataKey="memory"
              name={t('dashboard.load.memory')}
              stroke={COLORS.memory}
              dot={false}
              isAnimationActive={false}
            />
          </LineChart>
        </ResponsiveContainer>
      </Box>
      <Text size="sm" fw={600}>
        {t('dashboard.load.traffic')}
      </Text>
      <Box h={CHART_HEIGHT}>
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={points} margin={{ top: 4, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            {xAxis}
            <YAxis tickFormatter={(v: number) => formatSpeed(v)} width={88} fontSize={CHART_FONT_SIZE} />
            <Tooltip labelFormatter={heading} formatter={(value) => formatSpeed(Number(value))} />
            <Legend wrapperStyle={CHART_LEGEND_STYLE} />
            <Line type="monotone" dataKey="rx_rate" name={t('dashboard.load.rx')} stroke={COLORS.rx} dot={false} isAnimationActive={false} />
            <Line type="monotone" dataKey="tx_rate" name={t('dashboard.load.tx')} stroke={COLORS.tx} dot={false} isAnimationActive={false} />
          </LineChart>
        </ResponsiveContainer>
      </Box>
    </Stack>
  );
}
