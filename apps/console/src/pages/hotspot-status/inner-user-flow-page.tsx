import { Anchor, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { OnlineUserList } from '@portico/schema';
import { useStatusQuery } from '../network-status/net-status-query.js';
import { StatusFrame, StatusTable } from '../network-status/net-status-parts.js';
import { formatBytes, formatSpeed, INNER_USER_PATH } from './hotspot-status-api.js';
import { detailLink, filterUsers, INNER_USER_REFRESH_MS, useInnerUserFilters } from './inner-user-view.js';

/** Flow details (/sysstatus/inneruser/flowdetails): the LAN clients by traffic, heaviest first. */
export default function InnerUserFlowPage() {
  const { data, failed } = useStatusQuery<OnlineUserList>(INNER_USER_PATH, {}, INNER_USER_REFRESH_MS);
  return <InnerUserFlowView data={data} failed={failed} />;
}

/** The page's content for given data. */
export function InnerUserFlowView({ data, failed }: { data: OnlineUserList | null; failed: boolean }) {
  const { t } = useTranslation();
  const filters = useInnerUserFilters();
  const rows = data ? filterUsers(data.items, filters.auth, filters.query).sort((a, b) => b.up_bytes + b.down_bytes - (a.up_bytes + a.down_bytes)) : [];
  const controls = (
    <>
      <Anchor component={Link} to="/sysstatus/inneruser" size="sm">
        {t('hotspotStatus.back')}
      </Anchor>
      {filters.controls}
    </>
  );
  return (
    <StatusFrame testId="inner-user-flow-page" title={t('hotspotStatus.flow.title')} failed={failed} loading={!data} filters={controls}>
      {data && (
        <Stack gap="sm">
          <StatusTable
            testId="inner-user-flow-table"
            head={[
              t('hotspotStatus.field.ip'),
              t('hotspotStatus.field.hostname'),
              t('hotspotStatus.field.upload'),
              t('hotspotStatus.field.download'),
              t('hotspotStatus.field.total'),
              t('hotspotStatus.field.upRate'),
              t('hotspotStatus.field.downRate'),
              t('hotspotStatus.field.connections'),
            ]}
            rows={rows.map((user) => ({
              key: user.ip,
              cells: [
                detailLink(user.ip),
                <span data-testid="flow-hostname">{user.hostname}</span>,
                formatBytes(user.up_bytes),
                formatBytes(user.down_bytes),
                formatBytes(user.up_bytes + user.down_bytes),
                formatSpeed(user.up_rate),
                formatSpeed(user.down_rate),
                String(user.conn_count),
              ],
            }))}
          />
        </Stack>
      )}
    </StatusFrame>
  );
}
