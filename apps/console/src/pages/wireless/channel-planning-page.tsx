import { Alert, Button, Group, Progress, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { PlanningState, PlanningView } from '@portico/schema';
import { apiPost } from '../../api/api-client.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { useStatusQuery } from '../network-status/net-status-query.js';
import { StatusFrame, StatusTable } from '../network-status/net-status-parts.js';
import { useMenuTitle } from '../../routes/current-route.js';

const REFRESH_MS = 2_000;
const RUNNING: ReadonlySet<PlanningState> = new Set(['scanning', 'optimising', 'saving']);
const FAILED: ReadonlySet<PlanningState> = new Set(['allOffline', 'scanFailed', 'planFailed']);

/**
 * Channel planning (/wirelessmanage/wifiplaning, spec §4): every online AP scans (5-15 s each),
 * the planner picks channels from the scans, the plan is shown beside the current channels and
 * only takes effect once saved. The run lives on the device: a reload shows where it stands.
 */
export default function ChannelPlanningPage() {
  const { t } = useTranslation();
  const menuTitle = useMenuTitle();
  const { data, failed, refresh } = useStatusQuery<PlanningView>('ac/scanresult', {}, REFRESH_MS);

  async function act(action: 'start' | 'cancel' | 'save') {
    const reply = await apiPost('ac/startscan', { action }).catch(() => null);
    if (reply?.success) {
      if (action === 'save') showSuccessNotice(t('wireless.planning.savedNotice'));
      refresh();
    }
  }

  const running = data ? RUNNING.has(data.state) : false;
  return (
    <StatusFrame testId="channel-planning-page" title={menuTitle} failed={failed} loading={!data}>
      {data && (
        <Stack gap="md">
          <Group gap="sm">
            <Button onClick={() => void act('start')} disabled={running} data-testid="planning-start">
              {t('wireless.planning.start')}
            </Button>
            <Button variant="default" onClick={() => void act('cancel')} disabled={!running || data.state === 'saving'} data-testid="planning-cancel">
              {t('common.cancel')}
            </Button>
            <Button color="teal" onClick={() => void act('save')} disabled={data.state !== 'planned'} data-testid="planning-save">
              {t('wireless.planning.save')}
            </Button>
          </Group>
          <Text data-testid="planning-state">
            {t(`wireless.planning.state.${data.state}`, { done: data.progress.done, total: data.progress.total })}
          </Text>
          {data.state === 'scanning' && <Progress value={data.progress.total ? (100 * data.progress.done) / data.progress.total : 0} animated />}
          {FAILED.has(data.state) && (
            <Alert color="red" variant="light" data-testid="planning-error">
              {t(`wireless.planning.state.${data.state}`, { done: data.progress.done, total: data.progress.total })}
              {data.error ? ` (${data.error})` : ''}
            </Alert>
          )}
          {data.failed.length > 0 && (
            <Alert color="yellow" variant="light" data-testid="planning-failed">
              {t('wireless.planning.someFailed', { names: data.failed.map((f) => f.name || f.serial).join(', ') })}
            </Alert>
          )}
          {data.plan && (
            <Stack gap="xs">
              <Text size="sm" c="dimmed" data-testid="planning-score">
                {t('wireless.planning.score', {
                  before: data.plan.scoreBefore.toExponential(2),
                  after: data.plan.scoreAfter.toExponential(2),
                })}
              </Text>
              <StatusTable
                testId="planning-table"
                head={[t('wireless.field.name'), t('wireless.field.serial'), t('wireless.station.band'), t('wireless.planning.current'), t('wireless.planning.planned')]}
                rows={data.plan.aps.flatMap((ap) =>
                  ap.radios.map((r) => ({
                    key: `${ap.serial}-${r.band}`,
                    cells: [
                      <span>{ap.name || '-'}</span>,
                      ap.serial,
                      r.band === '2g' ? '2.4 GHz' : '5 GHz',
                      t('wireless.planning.channel', { channel: r.previousChannel, width: r.previousWidth }),
                      t('wireless.planning.channel', { channel: r.channel, width: r.width }),
                    ],
                  })),
                )}
              />
            </Stack>
          )}
        </Stack>
      )}
    </StatusFrame>
  );
}
