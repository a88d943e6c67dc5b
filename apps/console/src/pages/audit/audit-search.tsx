import { useState } from 'react';
import { Badge, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { Pager, StatusTable } from '../network-status/net-status-parts.js';
import { AUDIT_PATHS, downloadExport, inputInstant, localInput } from './audit-api.js';

const PAGE_SIZE = 50;
const REFRESH_MS = 30_000;
const DAY_MS = 86_400_000;

interface UrlRow {
  ts: number;
  client: string;
  server: string;
  port: number;
  kind: 'http' | 'tls';
  host: string;
  path: string;
}

interface FlowRow {
  ts: number;
  client: string;
  cport: number;
  server: string;
  port: number;
  proto: string;
}

/**
 * A search of the audit's URL or flow records by client, time window and text, a page at a
 * time, with the CSV export of the same search. Hosts and paths are shown as React text: a
 * recorded `<script>` reads as typed and never becomes markup.
 */
export function AuditSearch(props: { table: 'urls' | 'flows'; testId: string }) {
  const { t, i18n } = useTranslation();
  const [client, setClient] = useState('');
  const [from, setFrom] = useState(() => localInput(Date.now() - DAY_MS));
  const [to, setTo] = useState('');
  const [text, setText] = useState('');
  const [page, setPage] = useState(1);
  const [asked, setAsked] = useState({ client: '', from: inputInstant(from), to: undefined as number | undefined, text: '' });
  const params = { ...asked, page, pageSize: PAGE_SIZE };
  const path = props.table === 'urls' ? AUDIT_PATHS.urls : AUDIT_PATHS.flows;
  const { data } = useStatusQuery<{ items: Array<UrlRow | FlowRow>; total: number }>(path, params, REFRESH_MS);

  function search() {
    setAsked({ client: client.trim(), from: inputInstant(from), to: inputInstant(to), text: text.trim() });
    setPage(1);
  }

  const head =
    props.table === 'urls'
      ? [t('behaviourAudit.column.time'), t('behaviourAudit.column.client'), t('behaviourAudit.column.kind'), t('behaviourAudit.column.host'), t('behaviourAudit.column.path'), t('behaviourAudit.column.server')]
      : [t('behaviourAudit.column.time'), t('behaviourAudit.column.client'), t('behaviourAudit.column.cport'), t('behaviourAudit.column.proto'), t('behaviourAudit.column.server'), t('behaviourAudit.column.port')];

  const rows = (data?.items ?? []).map((row, index) => {
    if (props.table === 'urls') {
      const r = row as UrlRow;
      return {
        key: `${r.ts}-${index}`,
        cells: [
          instantText(r.ts, i18n.language),
          r.client,
          <Badge variant="light">{t(`behaviourAudit.kind.${r.kind === 'tls' ? 'tls' : 'http'}`)}</Badge>,
          <Text size="sm" data-testid="audit-host">{r.host}</Text>,
          <Text size="sm" data-testid="audit-path">{r.path}</Text>,
          `${r.server}:${r.port}`,
        ],
      };
    }
    const r = row as FlowRow;
    return { key: `${r.ts}-${index}`, cells: [instantText(r.ts, i18n.language), r.client, String(r.cport), r.proto.toUpperCase(), r.server, String(r.port)] };
  });

  return (
    <Stack gap="sm" data-testid={props.testId}>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput label={t('behaviourAudit.search.client')} value={client} maxLength={15} w={160} onChange={(e) => setClient(e.currentTarget.value)} data-testid="audit-client" />
        <TextInput type="datetime-local" label={t('behaviourAudit.search.from')} value={from} onChange={(e) => setFrom(e.currentTarget.value)} data-testid="audit-from" />
        <TextInput type="datetime-local" label={t('behaviourAudit.search.to')} value={to} onChange={(e) => setTo(e.currentTarget.value)} data-testid="audit-to" />
        <TextInput
          label={props.table === 'urls' ? t('behaviourAudit.search.text') : t('behaviourAudit.search.flowText')}
          value={text}
          maxLength={200}
          w={220}
          onChange={(e) => setText(e.currentTarget.value)}
          data-testid="audit-text"
        />
        <Button onClick={search} data-testid="audit-search">
          {t('behaviourAudit.search.search')}
        </Button>
        <Button variant="default" onClick={() => void downloadExport(props.table === 'urls' ? AUDIT_PATHS.urlExport : AUDIT_PATHS.ipExport, asked, props.table === 'urls' ? 'audit-urls.csv' : 'audit-flows.csv')} data-testid="audit-export">
          {t('behaviourAudit.search.export')}
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        {t('behaviourAudit.search.exportNote')}
      </Text>
      {data && (
        <>
          <StatusTable testId={`${props.testId}-table`} head={head} rows={rows} />
          <Pager total={data.total} page={page} pageSize={PAGE_SIZE} onPage={setPage} />
        </>
      )}
    </Stack>
  );
}
