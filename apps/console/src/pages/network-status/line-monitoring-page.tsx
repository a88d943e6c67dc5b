import { Anchor, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatSpeed, LINE_MONITOR_REFRESH_MS, type LineMonitoring } from '@portico/schema';
import { useStatusQuery } from './net-status-query.js';
import { StatusFrame, StatusTable } from './net-status-parts.js';
import { latencyText, onlineBadge } from './line-view.js';
import { useMenuTitle } from '../../routes/current-route.js';

export const LINE_DETAILS_PATH = '/sysstatus/linemonitoring/details';

/** Line monitoring (spec §2): every WAN's state, probes and rates, refreshed every 5 seconds. */
export default function LineMonitoringPage() {
  const { t } = useTranslation();
  const menuTitle = useMenuTitle();
  const { data, failed } = useStatusQuery<LineMonitoring>('status/linemonitoring', {}, LINE_MONITOR_REFRESH_MS);

  return (
    <StatusFrame testId="line-monitoring-page" title={menuTitle} failed={failed} loading={!data}>
      {data && (
        <Stack gap="sm">
          <Text size="sm" c="dimmed" data-testid="line-summary">
            {t('netStatus.line.onlineCount', { count: data.wanconnect, total: data.lines.length })} · {t('netStatus.line.refreshNote')}
          </Text>
          <StatusTable
            testId="line-table"
            head={[
              t('netStatus.line.name'),
              t('netStatus.line.state'),
              t('netStatus.line.ipaddr'),
              t('netStatus.line.gateway'),
              t('netStatus.line.latency'),
              t('netStatus.line.loss'),
              t('netStatus.line.rxRate'),
              t('netStatus.line.txRate'),
              '',
            ]}
            rows={data.lines.map((line) => ({
              key: line.name,
              cells: [
                line.name,
                onlineBadge(line, t),
                line.ipaddr,
                line.gateway,
                latencyText(line, t),
                t('netStatus.line.lossValue', { value: line.loss }),
                formatSpeed(line.rx_rate),
                formatSpeed(line.tx_rate),
                <Anchor component={Link} to={`${LINE_DETAILS_PATH}?name=${encodeURIComponent(line.name)}`} size="sm">
                  {t('netStatus.line.details')}
                </Anchor>,
              ],
            }))}
          />
        </Stack>
      )}
    </StatusFrame>
  );
}
