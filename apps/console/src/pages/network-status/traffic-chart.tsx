import { Box, Center, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { CHART_RANGES, formatSpeed, type ChartRange, type RatePoint } from '@portico/schema';
import { sampleTimeText, timeTickText } from '../dashboard/load-chart-model.js';
import { CHART_FONT_SIZE, CHART_LEGEND_STYLE } from '../../shell/chart-style.js';

/**
 * Download and upload rates of one interface over a range. The only module of these pages that
 * imports recharts; the pages load it lazily so their own chunks stay small.
 */

const CHART_HEIGHT = 220;

export default function TrafficChart({ range, points }: { range: ChartRange; points: readonly RatePoint[] }) {
  const { t } = useTranslation();
  const data = points.filter((p) => Number.isFinite(p.t)).slice().sort((a, b) => a.t - b.t);
  if (data.length === 0) {
    return (
      <Center h={CHART_HEIGHT} data-testid="traffic-chart" data-points="0">
        <Text c="dimmed" size="sm">
          {t('netStatus.monitor.chartEmpty')}
        </Text>
      </Center>
    );
  }
  const end = data[data.length - 1]!.t;
  return (
    <Box h={CHART_HEIGHT} data-testid="traffic-chart" data-points={data.length}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={data} margin={{ top: 4, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            scale="time"
            domain={[end - CHART_RANGES[range] * 1000, end]}
            tickFormatter={(v: number) => timeTickText(range, v)}
            minTickGap={24}
            fontSize={CHART_FONT_SIZE}
          />
          <YAxis tickFormatter={(v: number) => formatSpeed(v)} width={88} fontSize={CHART_FONT_SIZE} />
          <Tooltip
            labelFormatter={(label: unknown) => (typeof label === 'number' ? sampleTimeText(label) : String(label))}
            formatter={(value) => formatSpeed(Number(value))}
          />
          <Legend wrapperStyle={CHART_LEGEND_STYLE} />
          <Line type="monotone" dataKey="rx_rate" name={t('netStatus.monitor.rxRate')} stroke="#12b886" dot={false} isAnimationActive={false} />
          <Line type="monotone" dataKey="tx_rate" name={t('netStatus.monitor.txRate')} stroke="#fd7e14" dot={false} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </Box>
  );
}
