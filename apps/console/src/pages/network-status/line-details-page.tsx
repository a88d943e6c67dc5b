import { lazy, Suspense, useState } from 'react';
import { Anchor, Card, Group, Loader, Select, SimpleGrid, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { CHART_RANGE_KEYS, LINE_MONITOR_REFRESH_MS, type ChartRange, type LineDetails } from '@portico/schema';
import { rangeLabelKey } from '../dashboard/load-chart-model.js';
import { instantText, useStatusQuery } from './net-status-query.js';
import { StatusFrame, StatusTable } from './net-status-parts.js';
import { lineFigures, onlineBadge } from './line-view.js';

const TrafficChart = lazy(() => import('./traffic-chart.js'));

/** One WAN line: its figures, its last probes and its traffic over a range. */
export default function LineDetailsPage() {
  const { t, i18n } = useTranslation();
  const [search] = useSearchParams();
  const name = search.get('name') ?? '';
  const [range, setRange] = useState<ChartRange>('5m');
  const { data, failed } = useStatusQuery<LineDetails>('status/linemonitoring/details', { name, range }, LINE_MONITOR_REFRESH_MS);

  const filters = (
    <>
      <Anchor component={Link} to="/sysstatus/linemonitoring" size="sm">
        {t('netStatus.line.back')}
      </Anchor>
      <Select
        label={t('netStatus.monitor.range')}
        value={range}
        onChange={(value) => value && setRange(value as ChartRange)}
        data={CHART_RANGE_KEYS.map((r) => ({ value: r, label: t(rangeLabelKey(r)) }))}
        allowDeselect={false}
      />
    </>
  );

  return (
    <StatusFrame testId="line-details-page" title={`${t('netStatus.line.detailsTitle')}: ${name}`} failed={failed} loading={!data && !failed} filters={filters}>
      {data ? (
        <Stack gap="md">
          <Card withBorder radius="md" padding="md">
            <Group mb="sm">{onlineBadge(data.line, t)}</Group>
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="xs">
              {lineFigures(data.line, t).map((f) => (
                <Group key={f.label} justify="space-between" wrap="nowrap">
                  <Text size="sm" c="dimmed">
                    {f.label}
                  </Text>
                  <Text size="sm" fw={500}>
                    {f.value}
                  </Text>
                </Group>
              ))}
            </SimpleGrid>
          </Card>
          <Text fw={600}>{t('netStatus.line.probes')}</Text>
          {data.line.probes.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t('netStatus.line.noProbes')}
            </Text>
          ) : (
            <StatusTable
              testId="probe-table"
              head={[t('netStatus.line.target'), t('netStatus.line.sent'), t('netStatus.line.received'), t('netStatus.line.loss'), t('netStatus.line.latency'), t('netStatus.line.checkedAt')]}
              rows={data.line.probes.map((p) => ({
                key: p.target,
                cells: [
                  p.target,
                  String(p.sent),
                  String(p.received),
                  t('netStatus.line.lossValue', { value: p.loss }),
                  p.latency === null ? '—' : t('netStatus.line.latencyValue', { value: p.latency }),
                  instantText(data.line.checked_at, i18n.language),
                ],
              }))}
            />
          )}
          <Card withBorder radius="md" padding="md">
            <Text fw={600} mb="xs">
              {t('netStatus.monitor.chart', { name: data.line.interface })}
            </Text>
            <Suspense fallback={<Loader size="sm" />}>
              <TrafficChart range={range} points={data.points} />
            </Suspense>
          </Card>
        </Stack>
      ) : (
        failed && (
          <Text size="sm" c="dimmed">
            {t('netStatus.line.notFound')}
          </Text>
        )
      )}
    </StatusFrame>
  );
}
