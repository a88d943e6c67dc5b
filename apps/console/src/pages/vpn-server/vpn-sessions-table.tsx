import { Button, Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { instantText } from '../network-status/net-status-query.js';

/** One online session of a VPN server, as its status route lists it. */
export interface VpnSessionRow {
  key: string;
  name: string;
  from: string;
  address: string;
  since: number;
  rx: number;
  tx: number;
}

/**
 * The online sessions of a VPN server (OpenVPN, PPP servers): who, from where, address, since,
 * bytes, and a kick-off button. `labels` are i18n keys of the columns and of the button.
 */
export function VpnSessionsTable(props: {
  testId: string;
  rows: readonly VpnSessionRow[];
  labels: { columns: readonly string[]; kick: string };
  canWrite: boolean;
  onKick: (row: VpnSessionRow) => void;
}) {
  const { t, i18n } = useTranslation();
  return (
    <Table data-testid={props.testId}>
      <Table.Thead>
        <Table.Tr>
          {props.labels.columns.map((key) => (
            <Table.Th key={key}>{t(key)}</Table.Th>
          ))}
          <Table.Th />
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {props.rows.map((s) => (
          <Table.Tr key={s.key}>
            <Table.Td>{s.name}</Table.Td>
            <Table.Td>{s.from}</Table.Td>
            <Table.Td>{s.address}</Table.Td>
            <Table.Td>{instantText(s.since, i18n.language)}</Table.Td>
            <Table.Td>{s.rx}</Table.Td>
            <Table.Td>{s.tx}</Table.Td>
            <Table.Td>
              <Button size="xs" variant="subtle" color="red" disabled={!props.canWrite} onClick={() => props.onKick(s)}>
                {t(props.labels.kick)}
              </Button>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
