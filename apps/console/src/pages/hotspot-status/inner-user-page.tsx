import { Anchor, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { OnlineUserList } from '@portico/schema';
import { useStatusQuery } from '../network-status/net-status-query.js';
import { StatusFrame, StatusTable } from '../network-status/net-status-parts.js';
import { durationText, formatBytes, formatSpeed, INNER_USER_PATH } from './hotspot-status-api.js';
import { authBadge, detailLink, filterUsers, INNER_USER_REFRESH_MS, useInnerUserFilters } from './inner-user-view.js';
import { useMenuTitle } from '../../routes/current-route.js';

/**
 * Inner users (/sysstatus/inneruser): the clients on the LAN side with their authentication
 * state and traffic. Host names are what clients announce: shown as text only.
 */
export default function InnerUserPage() {
  const { data, failed } = useStatusQuery<OnlineUserList>(INNER_USER_PATH, {}, INNER_USER_REFRESH_MS);
  return <InnerUserView data={data} failed={failed} />;
}

/** The page's content for given data. */
export function InnerUserView({ data, failed }: { data: OnlineUserList | null; failed: boolean }) {
  const { t, i18n } = useTranslation();
  const menuTitle = useMenuTitle();
  const filters = useInnerUserFilters();
  const rows = data ? filterUsers(data.items, filters.auth, filters.query) : [];
  return (
    <StatusFrame testId="inner-user-page" title={menuTitle} failed={failed} loading={!data} filters={filters.controls}>
      {data && (
        <Stack gap="sm">
          <Group justify="space-between">
            <Text size="sm" c="dimmed" data-testid="inner-user-total">
              {t('hotspotStatus.inner.total', { total: data.total })}
            </Text>
            <Anchor component={Link} to="/sysstatus/inneruser/flowdetails" size="sm">
              {t('hotspotStatus.flow.title')}
            </Anchor>
          </Group>
          <StatusTable
            testId="inner-user-table"
            head={[
              t('hotspotStatus.field.ip'),
              t('hotspotStatus.field.mac'),
              t('hotspotStatus.field.hostname'),
              t('hotspotStatus.field.username'),
              t('hotspotStatus.field.auth'),
              t('hotspotStatus.field.upRate'),
              t('hotspotStatus.field.downRate'),
              t('hotspotStatus.field.onlineTime'),
            ]}
            rows={rows.map((user) => ({
              key: user.ip,
              cells: [
                detailLink(user.ip),
                user.mac,
                <span data-testid="inner-user-hostname">{user.hostname}</span>,
                <span data-testid="inner-user-username">{user.username || '-'}</span>,
                authBadge(user, t),
                formatSpeed(user.up_rate),
                formatSpeed(user.down_rate),
                durationText(user.online_time, t, i18n.language),
              ],
            }))}
          />
          {rows.length > 0 && (
            <Text size="xs" c="dimmed">
              {t('hotspotStatus.inner.totals', {
                up: formatBytes(rows.reduce((n, u) => n + u.up_bytes, 0)),
                down: formatBytes(rows.reduce((n, u) => n + u.down_bytes, 0)),
              })}
            </Text>
          )}
        </Stack>
      )}
    </StatusFrame>
  );
}
