import { useState } from 'react';
import { Badge, Group, SegmentedControl, Select, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ArpBindingMatch, ArpInfo } from '@portico/schema';
import { useStatusQuery } from './net-status-query.js';
import { Pager, StatusFrame, StatusTable, StatusSearch } from './net-status-parts.js';
import { useMenuTitle } from '../../routes/current-route.js';

const PAGE_SIZE = 50;
const REFRESH_MS = 10_000;
const BINDING_COLOR: Record<ArpBindingMatch, string> = { bound: 'teal', mismatch: 'red', none: 'gray' };

/** ARP and IPv6 neighbour table, compared with the ARP bindings. */
export default function ArpInfoPage() {
  const { t } = useTranslation();
  const menuTitle = useMenuTitle();
  const [family, setFamily] = useState<'all' | '4' | '6'>('all');
  const [iface, setIface] = useState('');
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const { data, failed } = useStatusQuery<ArpInfo>('arpinfo', { family, interface: iface, q, page, page_size: PAGE_SIZE }, REFRESH_MS);

  const filters = (
    <>
      <SegmentedControl
        aria-label={t('netStatus.family.label')}
        value={family}
        onChange={(value) => {
          setFamily(value as typeof family);
          setPage(1);
        }}
        data={[
          { value: 'all', label: t('netStatus.all') },
          { value: '4', label: t('netStatus.family.4') },
          { value: '6', label: t('netStatus.family.6') },
        ]}
      />
      <Select
        aria-label={t('netStatus.arp.interface')}
        value={iface}
        onChange={(value) => {
          setIface(value ?? '');
          setPage(1);
        }}
        data={[{ value: '', label: t('netStatus.all') }, ...(data?.interfaces ?? []).map((name) => ({ value: name, label: name }))]}
        allowDeselect={false}
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
    <StatusFrame testId="arp-info-page" title={menuTitle} failed={failed} loading={!data} filters={filters}>
      {data && (
        <Stack gap="sm">
          <StatusTable
            testId="arp-info-table"
            head={[
              t('netStatus.arp.ip'),
              t('netStatus.arp.mac'),
              t('netStatus.arp.interface'),
              t('netStatus.arp.state'),
              t('netStatus.arp.binding'),
              t('netStatus.arp.hostname'),
            ]}
            rows={data.items.map((n) => ({
              key: `${n.interface} ${n.ip}`,
              cells: [
                <Group gap={4}>
                  {n.ip}
                  {n.router && (
                    <Badge size="xs" variant="outline">
                      {t('netStatus.arp.router')}
                    </Badge>
                  )}
                </Group>,
                n.mac || t('netStatus.arp.unresolved'),
                n.interface,
                t(`netStatus.arp.states.${n.state}`),
                n.family === '4' ? (
                  <Badge color={BINDING_COLOR[n.binding]} variant="light">
                    {t(`netStatus.arp.bindings.${n.binding}`)}
                  </Badge>
                ) : (
                  ''
                ),
                n.hostname,
              ],
            }))}
          />
          <Pager total={data.total} page={page} pageSize={PAGE_SIZE} onPage={setPage} />
        </Stack>
      )}
    </StatusFrame>
  );
}
