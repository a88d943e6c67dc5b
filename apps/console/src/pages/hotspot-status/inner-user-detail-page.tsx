import { Anchor, Card, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import type { OnlineUserList } from '@portico/schema';
import { useStatusQuery } from '../network-status/net-status-query.js';
import { StatusFrame } from '../network-status/net-status-parts.js';
import {
  durationText,
  formatBytes,
  formatSpeed,
  HOTSPOT_ONLINE_PATH,
  INNER_USER_PATH,
  kbpsText,
  remainingBytesText,
  remainingTimeText,
  type OnlineHotspotList,
} from './hotspot-status-api.js';
import { authBadge, INNER_USER_REFRESH_MS } from './inner-user-view.js';

function Figure(props: { label: string; value: string; testId?: string }) {
  return (
    <Group justify="space-between" wrap="nowrap">
      <Text size="sm" c="dimmed">
        {props.label}
      </Text>
      <Text size="sm" fw={500} data-testid={props.testId} style={{ overflowWrap: 'anywhere' }}>
        {props.value}
      </Text>
    </Group>
  );
}

/** One LAN client (/sysstatus/inneruser/detail?ip=…): its traffic and, when signed in, its hotspot session. */
export default function InnerUserDetailPage() {
  const [search] = useSearchParams();
  const ip = search.get('ip') ?? '';
  const clients = useStatusQuery<OnlineUserList>(INNER_USER_PATH, {}, INNER_USER_REFRESH_MS);
  const sessions = useStatusQuery<OnlineHotspotList>(HOTSPOT_ONLINE_PATH, {}, INNER_USER_REFRESH_MS);
  return <InnerUserDetailView ip={ip} clients={clients.data} sessions={sessions.data} failed={clients.failed} />;
}

/** One client's figures for given data. */
export function InnerUserDetailView(props: { ip: string; clients: OnlineUserList | null; sessions: OnlineHotspotList | null; failed: boolean }) {
  const { t, i18n } = useTranslation();
  const { ip } = props;
  const clients = { data: props.clients, failed: props.failed };
  const user = props.clients?.items.find((u) => u.ip === ip);
  const session = props.sessions?.items.find((s) => s.ip === ip);
  const back = (
    <Anchor component={Link} to="/sysstatus/inneruser" size="sm">
      {t('hotspotStatus.back')}
    </Anchor>
  );
  return (
    <StatusFrame testId="inner-user-detail-page" title={t('hotspotStatus.detail.title', { ip })} failed={clients.failed} loading={!clients.data} filters={back}>
      {clients.data && !user && (
        <Text c="dimmed" data-testid="inner-user-missing">
          {t('hotspotStatus.detail.notFound')}
        </Text>
      )}
      {user && (
        <Stack gap="md">
          <Card withBorder radius="md" padding="md">
            <Group mb="sm">{authBadge(user, t)}</Group>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
              <Figure label={t('hotspotStatus.field.ip')} value={user.ip} />
              <Figure label={t('hotspotStatus.field.mac')} value={user.mac} />
              <Figure label={t('hotspotStatus.field.hostname')} value={user.hostname || '-'} testId="detail-hostname" />
              <Figure label={t('hotspotStatus.field.username')} value={user.username || '-'} testId="detail-username" />
              <Figure label={t('hotspotStatus.field.upload')} value={formatBytes(user.up_bytes)} />
              <Figure label={t('hotspotStatus.field.download')} value={formatBytes(user.down_bytes)} />
              <Figure label={t('hotspotStatus.field.upRate')} value={formatSpeed(user.up_rate)} />
              <Figure label={t('hotspotStatus.field.downRate')} value={formatSpeed(user.down_rate)} />
              <Figure label={t('hotspotStatus.field.onlineTime')} value={durationText(user.online_time, t, i18n.language)} />
              <Figure label={t('hotspotStatus.field.connections')} value={String(user.conn_count)} />
            </SimpleGrid>
          </Card>
          {session && (
            <Card withBorder radius="md" padding="md" data-testid="detail-session">
              <Text fw={600} mb="xs">
                {t('hotspotStatus.detail.session')}
              </Text>
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
                <Figure label={t('hotspotStatus.field.zone')} value={session.zone} />
                <Figure label={t('hotspotStatus.field.plan')} value={session.plan || '-'} testId="detail-plan" />
                <Figure label={t('hotspotStatus.field.timeLeft')} value={remainingTimeText(session.secondsRemaining, t, i18n.language)} />
                <Figure label={t('hotspotStatus.field.flowLeft')} value={remainingBytesText(session.bytesRemaining, t)} />
                <Figure label={t('hotspotStatus.field.rate')} value={`${kbpsText(session.upKbps, t)} / ${kbpsText(session.downKbps, t)}`} />
              </SimpleGrid>
            </Card>
          )}
        </Stack>
      )}
    </StatusFrame>
  );
}
