import { useState } from 'react';
import { SegmentedControl, Select, Stack } from '@mantine/core';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { SystemRoute, SystemRouteList } from '@portico/schema';
import { valueLabel } from '../../i18n/console-i18n.js';
import { useStatusQuery } from './net-status-query.js';
import { StatusFrame, StatusTable } from './net-status-parts.js';
import { useMenuTitle } from '../../routes/current-route.js';

const REFRESH_MS = 15_000;

const tableName = (t: TFunction, table: string) => valueLabel(t, 'netStatus.route.tables', table);

/** One route as the table shows it, in the reader's language: kernel names become labels. */
export function routeCells(r: SystemRoute, t: TFunction): string[] {
  const via =
    r.nexthops.length > 0
      ? r.nexthops.map((h) => `${h.gateway || t('netStatus.route.direct')} (${h.interface}, ${t('netStatus.route.weight', { weight: h.weight })})`).join(', ')
      : r.gateway || t('netStatus.route.direct');
  return [
    r.wan ? t('netStatus.route.tableWan', { table: r.table, wan: r.wan }) : tableName(t, r.table),
    r.destination === 'default' ? t('netStatus.route.defaultDestination') : r.destination,
    via,
    r.interface,
    valueLabel(t, 'netStatus.route.protocols', r.protocol),
    String(r.metric),
    r.source,
    valueLabel(t, 'netStatus.route.types', r.type),
  ];
}

/** The routes of every table the device uses, IPv4 and IPv6, policy tables named by their WAN. */
export default function SystemRoutePage() {
  const { t } = useTranslation();
  const menuTitle = useMenuTitle();
  const [family, setFamily] = useState<'all' | '4' | '6'>('all');
  const [table, setTable] = useState('');
  const { data, failed } = useStatusQuery<SystemRouteList>('systemroute', { family, table }, REFRESH_MS);

  const filters = (
    <>
      <SegmentedControl
        aria-label={t('netStatus.family.label')}
        value={family}
        onChange={(value) => setFamily(value as typeof family)}
        data={[
          { value: 'all', label: t('netStatus.all') },
          { value: '4', label: t('netStatus.family.4') },
          { value: '6', label: t('netStatus.family.6') },
        ]}
      />
      <Select
        aria-label={t('netStatus.route.table')}
        value={table}
        onChange={(value) => setTable(value ?? '')}
        data={[{ value: '', label: t('netStatus.all') }, ...(data?.tables ?? []).map((name) => ({ value: name, label: tableName(t, name) }))]}
        allowDeselect={false}
      />
    </>
  );

  return (
    <StatusFrame testId="system-route-page" title={menuTitle} failed={failed} loading={!data} filters={filters}>
      {data && (
        <Stack gap="sm">
          <StatusTable
            testId="system-route-table"
            head={[
              t('netStatus.route.table'),
              t('netStatus.route.destination'),
              t('netStatus.route.gateway'),
              t('netStatus.route.interface'),
              t('netStatus.route.protocol'),
              t('netStatus.route.metric'),
              t('netStatus.route.source'),
              t('netStatus.route.type'),
            ]}
            rows={data.items.map((r, i) => ({
              key: `${i} ${r.table} ${r.family} ${r.destination}`,
              cells: routeCells(r, t),
            }))}
          />
        </Stack>
      )}
    </StatusFrame>
  );
}
