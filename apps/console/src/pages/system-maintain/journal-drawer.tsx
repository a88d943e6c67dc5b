import { useEffect, useState } from 'react';
import { Button, Center, Drawer, Group, Loader, SimpleGrid, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { fetchDiff, fetchRevision } from './journal-api.js';
import { JournalChangesView } from './journal-changes-view.js';
import { formatTime, type JournalChange, type JournalEntry } from './journal-model.js';
import { summaryText } from './journal-summary.js';

/** What the drawer shows: one revision, or the difference between two. */
export type JournalView = { kind: 'revision'; entry: JournalEntry } | { kind: 'diff'; from: JournalEntry; to: JournalEntry };

type Loaded = { state: 'loading' } | { state: 'failed' } | { state: 'ready'; changes: JournalChange[]; revision?: JournalEntry };

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" style={{ wordBreak: 'break-word' }}>
        {value || '—'}
      </Text>
    </Stack>
  );
}

function EntryFacts({ entry, lang }: { entry: JournalEntry; lang: string }) {
  const { t, i18n } = useTranslation();
  const summary = summaryText(entry.summary, t, (key) => i18n.exists(key), (at) => formatTime(at, lang));
  return (
    <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs" data-testid="journal-facts">
      <Fact label={t('maintain.history.time')} value={formatTime(entry.at, lang)} />
      <Fact label={t('maintain.history.user')} value={entry.user} />
      <Fact label={t('maintain.history.source')} value={entry.sourceIp} />
      <Fact label={t('maintain.history.summary')} value={summary} />
    </SimpleGrid>
  );
}

interface Props {
  view: JournalView | null;
  onClose: () => void;
  /** Given when the account may write: offers "Revert to this revision". */
  onRevert?: (entry: JournalEntry) => void;
}

/** The changes of a revision (POST action get) or between two (POST action diff). */
export function JournalDrawer({ view, onClose, onRevert }: Props) {
  const { t, i18n } = useTranslation();
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });

  useEffect(() => {
    if (!view) return;
    let current = true;
    setLoaded({ state: 'loading' });
    const request =
      view.kind === 'revision'
        ? fetchRevision(view.entry.id).then((revision) => (revision ? { changes: revision.changes, revision } : null))
        : fetchDiff(view.from.id, view.to.id).then((changes) => (changes ? { changes } : null));
    request
      .then((result) => {
        if (current) setLoaded(result ? { state: 'ready', ...result } : { state: 'failed' });
      })
      .catch(() => {
        // Reported by the API client.
        if (current) setLoaded({ state: 'failed' });
      });
    return () => {
      current = false;
    };
  }, [view]);

  const title =
    view?.kind === 'diff'
      ? t('maintain.history.diffTitle', { from: String(view.from.id), to: String(view.to.id) })
      : view
        ? t('maintain.history.revisionTitle', { id: String(view.entry.id) })
        : '';
  const entry = view?.kind === 'revision' ? (loaded.state === 'ready' && loaded.revision ? loaded.revision : view.entry) : null;

  return (
    <Drawer
      opened={view !== null}
      onClose={onClose}
      position="right"
      size="xl"
      title={title}
      closeButtonProps={{ 'aria-label': t('common.close') }}
      data-testid="journal-drawer"
    >
      <Stack gap="md">
        {entry && <EntryFacts entry={entry} lang={i18n.language} />}
        {view?.kind === 'diff' && (
          <Text size="sm" c="dimmed">
            {t('maintain.history.diffRange', {
              from: formatTime(view.from.at, i18n.language),
              to: formatTime(view.to.at, i18n.language),
            })}
          </Text>
        )}
        {entry && onRevert && (
          <Group>
            <Button color="orange" variant="light" data-testid="journal-drawer-revert" onClick={() => onRevert(entry)}>
              {t('maintain.history.revert')}
            </Button>
          </Group>
        )}
        {loaded.state === 'loading' && (
          <Center py="lg">
            <Loader aria-label={t('common.loading')} />
          </Center>
        )}
        {loaded.state === 'failed' && <Text c="dimmed">{t('maintain.history.loadFailed')}</Text>}
        {loaded.state === 'ready' && <JournalChangesView changes={loaded.changes} />}
      </Stack>
    </Drawer>
  );
}
