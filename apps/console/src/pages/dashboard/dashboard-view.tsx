import { lazy, Suspense, type ReactNode } from 'react';
import {
  Alert,
  Badge,
  Button,
  Card,
  Center,
  Group,
  Loader,
  Progress,
  SimpleGrid,
  Stack,
  Table,
  Text,
} from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ChartRange, Dashboard, LoadSeries } from '@portico/schema';
import {
  deviceTimeText,
  GAUGE_LABEL,
  LEVEL_COLOR,
  percentText,
  systemGauges,
  topFlowRows,
  uptimeText,
  USER_COUNTS,
  wanOnline,
} from './dashboard-model.js';
import { LOAD_RANGES, rangeLabelKey } from './load-chart-model.js';
import { MenuPageHeading } from '../../shell/page-heading.js';

// recharts is heavy: it lives in its own chunk, fetched when the chart is first drawn.
const LoadChart = lazy(() => import('./load-chart.js'));

function InfoRow({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <Group justify="space-between" gap="md" wrap="nowrap">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500} ta="right" data-testid={testId} style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </Group>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card withBorder radius="md" padding="lg">
      <Text fw={600} mb="sm">
        {title}
      </Text>
      {children}
    </Card>
  );
}

export interface DashboardViewProps {
  /** Null until the first answer. */
  data: Dashboard | null;
  /** The last poll failed: the figures shown may be stale. */
  failed: boolean;
  range: ChartRange;
  series: LoadSeries | null;
  onRange: (range: ChartRange) => void;
  /** Said about the device before its figures (a locked licence, the setup wizard). */
  notices?: ReactNode;
}

/**
 * What the dashboard draws for a set of figures. Everything from the device is rendered as
 * text by React, so a hostile host name or address shows as typed.
 */
export function DashboardView({ data, failed, range, series, onRange, notices }: DashboardViewProps) {
  const { t, i18n } = useTranslation();

  if (!data) {
    return (
      <Stack data-testid="dashboard">
        <MenuPageHeading />
        {notices}
        {failed ? (
          <Alert color="yellow">{t('dashboard.unavailable')}</Alert>
        ) : (
          <Center py="xl">
            <Loader aria-label={t('dashboard.loading')} />
          </Center>
        )}
      </Stack>
    );
  }

  const { board, system, user } = data;
  const online = wanOnline(system.wanconnect);
  const flows = topFlowRows(user.topflows);
  const gauges = systemGauges(system, t);

  return (
    <Stack data-testid="dashboard">
      <MenuPageHeading />
      {notices}
      {failed && (
        <Alert color="yellow" variant="light">
          {t('dashboard.unavailable')}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        <Section title={t('dashboard.board.title')}>
          <Stack gap="xs">
            <InfoRow label={t('dashboard.board.sn')} testId="dash-board-sn">
              {board.sn}
            </InfoRow>
            <InfoRow label={t('dashboard.board.model')}>{board.model}</InfoRow>
            <InfoRow label={t('dashboard.board.version')}>{board.version}</InfoRow>
          </Stack>
        </Section>

        <Section title={t('dashboard.system.title')}>
          <Stack gap="xs">
            <InfoRow label={t('dashboard.system.localtime')}>{deviceTimeText(system.localtime)}</InfoRow>
            <InfoRow label={t('dashboard.system.uptime')}>{uptimeText(system.uptime, t, i18n.language)}</InfoRow>
            <Group justify="space-between" gap="md">
              <Text size="sm" c="dimmed">
                {t('dashboard.system.wan')}
              </Text>
              <Badge
                color={online ? 'teal' : 'red'}
                variant="light"
                data-testid="dash-wan-status"
                data-online={online ? 'true' : 'false'}
              >
                {t(online ? 'dashboard.wan.online' : 'dashboard.wan.offline')}
              </Badge>
            </Group>
          </Stack>
        </Section>

        <Section title={t('dashboard.user.title')}>
          <SimpleGrid cols={2} spacing="sm">
            {USER_COUNTS.map((key) => (
              <Stack key={key} gap={0}>
                <Text size="xs" c="dimmed">
                  {t(`dashboard.user.${key}`)}
                </Text>
                <Text size="xl" fw={700} data-testid={`dash-users-${key}`}>
                  {user[key]}
                </Text>
              </Stack>
            ))}
          </SimpleGrid>
        </Section>
      </SimpleGrid>

      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Section title={t('dashboard.system.resources')}>
          <Stack gap="sm">
            {gauges.map((gauge) => (
              <Stack key={gauge.key} gap={4} data-testid={`dash-gauge-${gauge.key}`}>
                <Group justify="space-between" gap="xs">
                  <Text size="sm">{t(GAUGE_LABEL[gauge.key])}</Text>
                  <Text size="sm" c="dimmed">
                    {gauge.detail ? `${gauge.detail} · ` : ''}
                    {percentText(gauge.percent)}
                  </Text>
                </Group>
                <Progress value={gauge.percent} color={LEVEL_COLOR[gauge.level]} aria-label={t(GAUGE_LABEL[gauge.key])} />
              </Stack>
            ))}
          </Stack>
        </Section>

        <Section title={t('dashboard.topflows.title')}>
          {flows.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t('dashboard.topflows.empty')}
            </Text>
          ) : (
            <Table striped data-testid="dash-topflows">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('dashboard.topflows.ip')}</Table.Th>
                  <Table.Th ta="right">{t('dashboard.topflows.flow')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {flows.map((row) => (
                  <Table.Tr key={row.ip}>
                    <Table.Td style={{ overflowWrap: 'anywhere' }}>{row.ip}</Table.Td>
                    <Table.Td ta="right">{row.text}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Section>
      </SimpleGrid>

      <Card withBorder radius="md" padding="lg">
        <Group justify="space-between" mb="sm" wrap="wrap">
          <Text fw={600}>{t('dashboard.load.title')}</Text>
          <Button.Group aria-label={t('dashboard.range.label')}>
            {LOAD_RANGES.map((r) => (
              <Button
                key={r}
                size="xs"
                variant={r === range ? 'filled' : 'default'}
                aria-pressed={r === range}
                data-testid={`dash-range-${r}`}
                onClick={() => onRange(r)}
              >
                {t(rangeLabelKey(r))}
              </Button>
            ))}
          </Button.Group>
        </Group>
        <Suspense
          fallback={
            <Center h={200}>
              <Loader size="sm" aria-label={t('dashboard.load.loading')} />
            </Center>
          }
        >
          {series === null ? (
            <Center h={200}>
              <Loader size="sm" aria-label={t('dashboard.load.loading')} />
            </Center>
          ) : (
            <LoadChart range={range} series={series} />
          )}
        </Suspense>
      </Card>
    </Stack>
  );
}
