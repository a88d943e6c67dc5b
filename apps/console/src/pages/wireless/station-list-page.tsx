import { useState } from 'react';
import { Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatBytes, type StationList } from '@portico/schema';
import { useStatusQuery } from '../network-status/net-status-query.js';
import { Pager, StatusFrame, StatusSearch, StatusTable } from '../network-status/net-status-parts.js';
import { useMenuTitle } from '../../routes/current-route.js';
import { mbpsText, STATION_LIST_PATH } from './wireless-api.js';
import { durationText } from '../hotspot-status/hotspot-status-api.js';

const PAGE_SIZE = 50;
const REFRESH_MS = 10_000;

/**
 * Wireless stations (/sysstatus/stainfo): every station the adopted APs report, with its AP,
 * SSID, signal, rates, traffic and time associated. Host names and SSIDs are device text.
 */
export default function StationListPage() {
  const { t, i18n } = useTranslation();
  const menuTitle = useMenuTitle();
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const { data, failed } = useStatusQuery<StationList>(STATION_LIST_PATH.ap, { q, page, page_size: PAGE_SIZE }, REFRESH_MS);
  return (
    <StatusFrame
      testId="station-list-page"
      title={menuTitle}
      failed={failed}
      loading={!data}
      filters={
        <StatusSearch
          value={q}
          onChange={(value) => {
            setQ(value);
            setPage(1);
          }}
        />
      }
    >
      {data && (
        <Stack gap="sm">
          <StatusTable
            testId="station-table"
            head={[
              t('wireless.station.mac'),
              t('wireless.station.hostname'),
              t('wireless.station.device'),
              t('wireless.station.ssid'),
              t('wireless.station.band'),
              t('wireless.station.rssi'),
              t('wireless.station.rates'),
              t('wireless.station.traffic'),
              t('wireless.station.connected'),
            ]}
            rows={data.items.map((s) => ({
              key: `${s.serial}-${s.bssid}-${s.mac}`,
              cells: [
                s.mac,
                <span data-testid="station-hostname">{s.hostname || '-'}</span>,
                <span data-testid="station-device">{s.device || s.serial}</span>,
                <span data-testid="station-ssid">{s.ssid}</span>,
                s.band ?? '-',
                s.rssi === null ? '-' : t('wireless.station.dbm', { value: s.rssi }),
                t('wireless.station.rateValue', { rx: mbpsText(s.rxRate), tx: mbpsText(s.txRate) }),
                `${formatBytes(s.rxBytes)} / ${formatBytes(s.txBytes)}`,
                durationText(s.connected, t, i18n.language),
              ],
            }))}
          />
          <Pager total={data.total} page={page} pageSize={PAGE_SIZE} onPage={setPage} />
        </Stack>
      )}
    </StatusFrame>
  );
}
