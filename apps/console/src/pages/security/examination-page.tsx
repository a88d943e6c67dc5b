import { Badge, Button, Group, Progress, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { CheckItem, CheckMode, CheckResult, HealthCheck } from '@portico/schema';
import { apiPost } from '../../api/api-client.js';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { StatusFrame, StatusTable } from '../network-status/net-status-parts.js';
import { useMenuTitle } from '../../routes/current-route.js';

/** Read every second while a check runs, so its items appear as they are done. */
const REFRESH_MS = 1000;
const RESULT_COLOR: Record<CheckResult, string> = { ok: 'teal', fail: 'red', warning: 'yellow', unknown: 'gray' };

function valueText(item: CheckItem, t: (key: string, options?: Record<string, unknown>) => string): string {
  if (item.value === null) return '';
  if (item.key === 'dns' || item.key === 'http') return t('health.ms', { value: item.value });
  if (item.key === 'disk' || item.key === 'memory') return `${item.value}%`;
  return String(item.value);
}

/** Security → examination: the routing health check (spec §2, §4): full, quick, stop, again, speed test. */
export default function ExaminationPage() {
  const { t, i18n } = useTranslation();
  const menuTitle = useMenuTitle();
  const { data, failed, refresh } = useStatusQuery<HealthCheck>('sysconf/check', {}, REFRESH_MS);
  const navigate = useNavigate();

  async function command(body: { action: 'start'; mode: CheckMode } | { action: 'stop' }) {
    await apiPost<HealthCheck>('sysconf/check', body).catch(() => null);
    refresh();
  }

  const buttons = (
    <>
      <Button data-testid="check-full" disabled={data?.running} onClick={() => void command({ action: 'start', mode: 'full' })}>
        {data?.mode === 'full' && !data.running ? t('health.check.again') : t('health.check.full')}
      </Button>
      <Button data-testid="check-quick" variant="light" disabled={data?.running} onClick={() => void command({ action: 'start', mode: 'quick' })}>
        {t('health.check.quick')}
      </Button>
      <Button data-testid="check-stop" variant="default" disabled={!data?.running} onClick={() => void command({ action: 'stop' })}>
        {t('health.check.stop')}
      </Button>
      {/* The routing health check's speed test (spec §2) is the WAN speed test page. */}
      <Button data-testid="check-speedtest" variant="subtle" onClick={() => void navigate('/security/speedtest')}>
        {t('health.check.speedTest')}
      </Button>
    </>
  );

  return (
    <StatusFrame testId="examination-page" title={menuTitle} failed={failed} loading={!data} filters={buttons}>
      {data && (
        <Stack gap="sm">
          <Text size="sm" data-testid="check-status">
            {data.running
              ? t('health.check.running', { done: data.done, total: data.total })
              : data.started === null
                ? t('health.check.idle')
                : data.stopped
                  ? t('health.check.stopped', { time: instantText(data.finished, i18n.language) })
                  : t('health.check.finished', { time: instantText(data.finished, i18n.language) })}
          </Text>
          {data.running && <Progress value={data.total ? (data.done / data.total) * 100 : 0} animated />}
          {data.started !== null && (
            <StatusTable
              testId="check-items"
              head={[t('health.check.column.item'), t('health.check.column.subject'), t('health.check.column.state'), t('health.check.column.value'), t('health.check.column.result')]}
              rows={data.items.map((item, index) => ({
                key: `${index} ${item.key}`,
                cells: [
                  t(`health.check.item.${item.key}`),
                  item.subject,
                  t(`health.check.state.${item.state}`),
                  valueText(item, t),
                  <Group gap={4}>
                    <Badge color={RESULT_COLOR[item.result]} variant="light" data-result={item.result}>
                      {t(`health.check.result.${item.result}`)}
                    </Badge>
                  </Group>,
                ],
              }))}
            />
          )}
        </Stack>
      )}
    </StatusFrame>
  );
}
