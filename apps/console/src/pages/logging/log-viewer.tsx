import { useState } from 'react';
import { Badge, Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { LOG_LEVELS, LOG_PAGE_SIZES, LOG_TEXT_MAX, LOG_WINDOW_MAX, type LogEntry, type LogName, type LogPage } from '@portico/schema';
import { apiPost, apiUrl } from '../../api/api-client.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { useCurrentRoute, useMenuTitle } from '../../routes/current-route.js';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { Pager, StatusFrame, StatusTable } from '../network-status/net-status-parts.js';

/** The daemon's one log call (spec §7): action get, clean or download, and a file extension. */
export const LOG_PATH = 'sysconf/log';
const REFRESH_MS = 30_000;

const LEVEL_COLOURS: Record<string, string> = { emerg: 'red', alert: 'red', crit: 'red', err: 'red', warning: 'orange', notice: 'blue', info: 'gray', debug: 'gray' };

interface Filter {
  from: string;
  to: string;
  level: string;
  text: string;
}
const NO_FILTER: Filter = { from: '', to: '', level: '', text: '' };

/** A `datetime-local` value (the reader's clock) as ms since the epoch; empty: none. */
function instant(value: string): number | undefined {
  const ms = value ? new Date(value).getTime() : Number.NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * The message of an entry. A program's text is shown as written; an entry the daemon made is
 * its i18n key, with values whose name ends in `Key` translated too. Everything is React text:
 * a DHCP host name such as `<img src=x onerror=…>` shows as typed and never becomes markup.
 */
export function useEntryMessage(): (entry: LogEntry) => string {
  const { t } = useTranslation();
  return (entry) => {
    if (!entry.key) return entry.text ?? '';
    const values: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(entry.values ?? {})) values[name] = name.endsWith('Key') ? t(String(value), { defaultValue: String(value) }) : value;
    return t(entry.key, { ...values, defaultValue: [entry.key, ...Object.values(values)].join(' ') });
  };
}

/**
 * One log of the Logs menu: a paged table (newest first) with time, level and text filters,
 * downloads as text or gzip (a link the browser saves as the daemon streams it), and clean
 * with a confirmation for accounts that may change the page.
 */
export function LogViewer(props: { name: LogName }) {
  const { t, i18n } = useTranslation();
  const title = useMenuTitle();
  const route = useCurrentRoute();
  const message = useEntryMessage();
  const [draft, setDraft] = useState<Filter>(NO_FILTER);
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const [page, setPage] = useState(1);
  const [size, setSize] = useState<number>(50);
  const query = {
    name: props.name,
    from: instant(filter.from),
    to: instant(filter.to),
    level: filter.level || undefined,
    text: filter.text || undefined,
  };
  const { data, failed, refresh } = useStatusQuery<LogPage>(LOG_PATH, { ...query, page, size }, REFRESH_MS);
  const canClean = route?.permission === 'modify';

  function apply(next: Filter) {
    setFilter(next);
    setPage(1);
  }

  async function clean() {
    if (!window.confirm(t('logs.confirmClean', { log: title }))) return;
    const reply = await apiPost(LOG_PATH, { action: 'clean', name: props.name }).catch(() => null);
    if (reply?.success) {
      showSuccessNotice(t('logs.cleaned'));
      refresh();
    }
  }

  const download = (ext: 'txt' | 'gz') => apiUrl(LOG_PATH, { ...query, action: 'download', ext });
  const levelOptions = [
    { value: '', label: t('logs.filter.anyLevel') },
    ...LOG_LEVELS.map((level) => ({ value: level, label: t('logs.filter.atLeast', { level: t(`logs.level.${level}`) }) })),
  ];
  const reachable = Math.min(data?.total ?? 0, LOG_WINDOW_MAX);

  const filters = (
    <>
      <TextInput type="datetime-local" label={t('logs.filter.from')} value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.currentTarget.value })} data-testid="log-filter-from" />
      <TextInput type="datetime-local" label={t('logs.filter.to')} value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.currentTarget.value })} data-testid="log-filter-to" />
      <Select
        label={t('logs.filter.level')}
        data={levelOptions}
        value={draft.level}
        allowDeselect={false}
        onChange={(value) => setDraft({ ...draft, level: value ?? '' })}
        data-testid="log-filter-level"
        w={200}
      />
      <TextInput
        label={t('logs.filter.text')}
        placeholder={t('logs.filter.textHint')}
        value={draft.text}
        maxLength={LOG_TEXT_MAX}
        onChange={(e) => setDraft({ ...draft, text: e.currentTarget.value })}
        onKeyDown={(e) => e.key === 'Enter' && apply(draft)}
        data-testid="log-filter-text"
        w={240}
      />
      <Button onClick={() => apply(draft)} data-testid="log-filter-apply">
        {t('logs.filter.apply')}
      </Button>
      <Button
        variant="default"
        onClick={() => {
          setDraft(NO_FILTER);
          apply(NO_FILTER);
        }}
        data-testid="log-filter-reset"
      >
        {t('logs.filter.reset')}
      </Button>
    </>
  );

  return (
    <StatusFrame testId={`log-${props.name}`} title={title} failed={failed} loading={!data} filters={filters}>
      {data && (
        <Stack gap="sm">
          <Group>
            <Button variant="light" onClick={refresh} data-testid="log-refresh">
              {t('logs.refresh')}
            </Button>
            <Button component="a" href={download('txt')} download variant="default" data-testid="log-download-txt">
              {t('logs.downloadText')}
            </Button>
            <Button component="a" href={download('gz')} download variant="default" data-testid="log-download-gz">
              {t('logs.downloadGzip')}
            </Button>
            {canClean && (
              <Button variant="default" color="red" onClick={() => void clean()} data-testid="log-clean">
                {t('logs.clean')}
              </Button>
            )}
            <Select
              aria-label={t('logs.pageSize')}
              data={LOG_PAGE_SIZES.map((n) => ({ value: String(n), label: t('logs.perPage', { count: n }) }))}
              value={String(size)}
              allowDeselect={false}
              onChange={(value) => {
                setSize(Number(value ?? 50));
                setPage(1);
              }}
              w={140}
              data-testid="log-page-size"
            />
          </Group>
          {data.source === 'absent' && (
            <Text c="dimmed" data-testid="log-absent">
              {t('logs.absent')}
            </Text>
          )}
          <StatusTable
            testId="log-table"
            head={[t('logs.field.time'), t('logs.field.level'), t('logs.field.origin'), t('logs.field.message')]}
            rows={data.items.map((entry, index) => ({
              key: `${entry.time}-${index}`,
              cells: [
                instantText(entry.time, i18n.language),
                <Badge variant="light" color={LEVEL_COLOURS[entry.level]}>
                  {t(`logs.level.${entry.level}`)}
                </Badge>,
                entry.origin ?? '',
                <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} data-testid="log-message">
                  {message(entry)}
                </Text>,
              ],
            }))}
          />
          <Pager total={reachable} page={page} pageSize={size} onPage={setPage} />
          {data.total > LOG_WINDOW_MAX && (
            <Text size="sm" c="dimmed" data-testid="log-window">
              {t('logs.window', { total: data.total, shown: LOG_WINDOW_MAX })}
            </Text>
          )}
        </Stack>
      )}
    </StatusFrame>
  );
}
