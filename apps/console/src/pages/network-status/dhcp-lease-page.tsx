import { useState } from 'react';
import { Badge, SegmentedControl, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { DHCP_LEASE_STATES, type DhcpLeaseList, type DhcpLeaseState } from '@portico/schema';
import { instantText, useStatusQuery } from './net-status-query.js';
import { Pager, StatusFrame, StatusTable, StatusSearch } from './net-status-parts.js';
import { useMenuTitle } from '../../routes/current-route.js';

const PAGE_SIZE = 50;
const REFRESH_MS = 10_000;
const STATE_COLOR: Record<DhcpLeaseState, string> = { active: 'teal', abandoned: 'orange', free: 'gray' };

/** DHCP leases (spec §3 Statistics): every pool address as active, abandoned or free. */
export default function DhcpLeasePage() {
  const { t, i18n } = useTranslation();
  const menuTitle = useMenuTitle();
  const [status, setStatus] = useState<'all' | DhcpLeaseState>('all');
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const { data, failed } = useStatusQuery<DhcpLeaseList>('dhcpv4info', { status, q, page, page_size: PAGE_SIZE }, REFRESH_MS);

  const filters = (
    <>
      <SegmentedControl
        data-testid="lease-status-filter"
        value={status}
        onChange={(value) => {
          setStatus(value as typeof status);
          setPage(1);
        }}
        data={[
          { value: 'all', label: t('netStatus.all') },
          ...DHCP_LEASE_STATES.map((s) => ({
            value: s,
            label: data ? `${t(`netStatus.dhcp.state.${s}`)} (${data.counts[s]})` : t(`netStatus.dhcp.state.${s}`),
          })),
        ]}
      />
      <StatusSearch
        value={q}
        onChange={(value) => {
          setQ(value);
          setPage(1);
        }}
      />
    </>
  );

  return (
    <StatusFrame testId="dhcp-lease-page" title={menuTitle} failed={failed} loading={!data} filters={filters}>
      {data && (
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            {t('netStatus.dhcp.pools')}:{' '}
            {data.pools.length === 0
              ? t('netStatus.dhcp.noPools')
              : data.pools
                  .map((p) => `${p.interface} ${t('netStatus.dhcp.poolRange', { first: p.first, last: p.last, size: p.size, minutes: p.lease_minutes })}`)
                  .join('; ')}
          </Text>
          <StatusTable
            testId="dhcp-lease-table"
            head={[
              t('netStatus.dhcp.ip'),
              t('netStatus.dhcp.mac'),
              t('netStatus.dhcp.hostname'),
              t('netStatus.dhcp.interface'),
              t('netStatus.dhcp.start'),
              t('netStatus.dhcp.end'),
              t('netStatus.dhcp.status'),
            ]}
            rows={data.items.map((lease) => ({
              key: lease.ip,
              cells: [
                lease.ip,
                lease.mac,
                <span data-testid="lease-hostname">{lease.hostname}</span>,
                lease.interface,
                instantText(lease.start, i18n.language),
                lease.status === 'active' && lease.end === null ? t('netStatus.dhcp.infinite') : instantText(lease.end, i18n.language),
                <Badge
                  color={STATE_COLOR[lease.status]}
                  variant="light"
                  title={lease.reason ? t(`netStatus.dhcp.reason.${lease.reason}`) : undefined}
                >
                  {t(`netStatus.dhcp.state.${lease.status}`)}
                  {lease.reason ? ` · ${t(`netStatus.dhcp.reason.${lease.reason}`)}` : ''}
                </Badge>,
              ],
            }))}
          />
          <Pager total={data.total} page={page} pageSize={PAGE_SIZE} onPage={setPage} />
        </Stack>
      )}
    </StatusFrame>
  );
}
