import { useCallback, useEffect, useState } from 'react';
import { Badge, Button, Checkbox, Group, Select, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { VOUCHER_STATUSES, type VoucherRow, type VoucherStatus } from '@portico/schema';
import { showSuccessNotice } from '../../shell/notice.js';
import { deleteVouchers, fetchVouchers } from './voucher-api.js';
import { MenuPageHeading } from '../../shell/page-heading.js';

const STATUS_COLOR: Readonly<Record<VoucherStatus, string>> = { unused: 'teal', inuse: 'blue', expired: 'gray' };

function when(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toLocaleString();
}

/** Vouchers (/hotspot/voucher): every voucher with its status; codes are never listed. */
export default function VoucherListPage() {
  const { t } = useTranslation();
  const [status, setStatus] = useState<VoucherStatus | null>(null);
  const [rows, setRows] = useState<VoucherRow[]>([]);
  const [selected, setSelected] = useState<Set<string>>(new Set());

  const reload = useCallback(() => {
    fetchVouchers({ status: status ?? undefined })
      .then((page) => {
        setRows(page.items);
        setSelected(new Set());
      })
      .catch(() => undefined); // reported by the API client
  }, [status]);
  useEffect(reload, [reload]);

  async function removeSelected() {
    if (!window.confirm(t('hotspot.voucher.confirmDelete'))) return;
    const reply = await deleteVouchers([...selected]).catch(() => null);
    if (reply?.success) {
      showSuccessNotice(t('entity.deleted'));
      reload();
    }
  }

  const toggle = (id: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <Stack>
      <MenuPageHeading />
      <Group>
        <Select
          placeholder={t('hotspot.voucher.status')}
          clearable
          value={status}
          onChange={(value) => setStatus(value as VoucherStatus | null)}
          data={VOUCHER_STATUSES.map((s) => ({ value: s, label: t(`hotspot.voucher.${s}`) }))}
          data-testid="voucher-status-filter"
        />
        <Button color="red" variant="light" disabled={selected.size === 0} onClick={() => void removeSelected()}>
          {t('entity.deleteSelected', { count: selected.size })}
        </Button>
      </Group>
      <Table striped withTableBorder data-testid="voucher-list">
        <Table.Thead>
          <Table.Tr>
            <Table.Th />
            <Table.Th>{t('hotspot.voucher.batch')}</Table.Th>
            <Table.Th>#</Table.Th>
            <Table.Th>{t('hotspot.voucher.status')}</Table.Th>
            <Table.Th>{t('hotspot.voucher.plan')}</Table.Th>
            <Table.Th>{t('hotspot.voucher.firstUsed')}</Table.Th>
            <Table.Th>{t('hotspot.voucher.expires')}</Table.Th>
            <Table.Th>{t('hotspot.voucher.devices')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.length === 0 && (
            <Table.Tr>
              <Table.Td colSpan={8}>
                <Text c="dimmed">{t('hotspot.voucher.empty')}</Text>
              </Table.Td>
            </Table.Tr>
          )}
          {rows.map((row) => (
            <Table.Tr key={row.id} data-testid="voucher-row">
              <Table.Td>
                <Checkbox checked={selected.has(row.id)} onChange={() => toggle(row.id)} aria-label={t('entity.selectRow')} />
              </Table.Td>
              <Table.Td>{row.batch_name}</Table.Td>
              <Table.Td>{row.serial}</Table.Td>
              <Table.Td>
                <Badge color={STATUS_COLOR[row.status]} variant="light" tt="none">
                  {t(`hotspot.voucher.${row.status}`)}
                </Badge>
              </Table.Td>
              <Table.Td>{row.plan}</Table.Td>
              <Table.Td>{when(row.first_used)}</Table.Td>
              <Table.Td>{when(row.expires_at)}</Table.Td>
              <Table.Td>{`${row.macs.length}${row.usernum > 0 ? ` / ${row.usernum}` : ''}`}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
