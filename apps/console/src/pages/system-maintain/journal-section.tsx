import { useEffect, useRef, useState } from 'react';
import { Box, Button, Group, LoadingOverlay, Modal, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { showSuccessNotice } from '../../shell/notice.js';
import { confirmOfferOf } from '../../state/apply-confirm-store.js';
import { fetchJournalPage, revertToRevision } from './journal-api.js';
import { JournalDrawer, type JournalView } from './journal-drawer.js';
import { JournalTable } from './journal-table.js';
import { ListFooter } from '../entity/entity-list-parts.js';
import {
  diffRange,
  formatTime,
  JOURNAL_PAGE_SIZES,
  pageCount,
  revertMadeRevision,
  toggleSelection,
  type JournalEntry,
} from './journal-model.js';

/**
 * Configuration history: every write as a revision, newest first. A row opens its changes;
 * two selected rows can be compared; a revision can be put back (with confirmation here,
 * and with the device's own confirmation deadline when the revert can cut access).
 */
export function JournalSection({ canRevert }: { canRevert: boolean }) {
  const { t, i18n } = useTranslation();
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState<number>(JOURNAL_PAGE_SIZES[1]);
  const [items, setItems] = useState<JournalEntry[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [reloadToken, setReloadToken] = useState(0);
  const [selected, setSelected] = useState<JournalEntry[]>([]);
  const [view, setView] = useState<JournalView | null>(null);
  const [pendingRevert, setPendingRevert] = useState<JournalEntry | null>(null);
  const [reverting, setReverting] = useState(false);
  const latestRequest = useRef(0);

  useEffect(() => {
    const request = ++latestRequest.current;
    setLoading(true);
    fetchJournalPage(page, pageSize)
      .then((result) => {
        if (request !== latestRequest.current) return;
        // The journal shrank under the page (a reset, a purge): show its last page instead.
        const last = pageCount(result.total, pageSize);
        if (result.items.length === 0 && page > last) {
          setPage(last);
          return;
        }
        setItems(result.items);
        setTotal(result.total);
      })
      .catch(() => {
        // Reported by the API client; keep what was shown.
      })
      .finally(() => {
        if (request === latestRequest.current) setLoading(false);
      });
  }, [page, pageSize, reloadToken]);

  const range = diffRange(selected);

  async function confirmRevert() {
    if (!pendingRevert || reverting) return;
    setReverting(true);
    try {
      const reply = await revertToRevision(pendingRevert.id);
      if (reply.success) {
        // A revert that needs confirmation is announced by the confirmation bar instead; no
        // new revision means the configuration already was as the chosen one.
        const id = String(pendingRevert.id);
        if (!confirmOfferOf(reply.data)) {
          showSuccessNotice(t(revertMadeRevision(reply.data) ? 'maintain.history.reverted' : 'maintain.history.revertNothing', { id }));
        }
        setView(null);
        setSelected([]);
        setPage(1);
        setReloadToken((n) => n + 1);
      }
    } catch {
      // Reported by the API client.
    } finally {
      setReverting(false);
      setPendingRevert(null);
    }
  }

  const pages = pageCount(total, pageSize);

  return (
    <Stack gap="sm" data-testid="journal-section">
      <Group justify="space-between" wrap="wrap">
        <Title order={4}>{t('maintain.history.title')}</Title>
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            {t('maintain.history.selectHint', { count: selected.length })}
          </Text>
          <Button
            variant="light"
            data-testid="journal-diff"
            disabled={!range}
            onClick={() => range && setView({ kind: 'diff', ...range })}
          >
            {t('maintain.history.compare')}
          </Button>
          <Button variant="default" data-testid="journal-refresh" onClick={() => setReloadToken((n) => n + 1)}>
            {t('common.refresh')}
          </Button>
        </Group>
      </Group>

      <Box pos="relative">
        <LoadingOverlay visible={loading} zIndex={5} overlayProps={{ blur: 1 }} />
        <JournalTable
          items={items}
          loading={loading}
          selected={selected}
          canRevert={canRevert}
          onOpen={(entry) => setView({ kind: 'revision', entry })}
          onSelect={(entry, on) => setSelected((prev) => toggleSelection(prev, entry, on))}
          onRevert={setPendingRevert}
        />
      </Box>

      <ListFooter
        totalText={t('maintain.history.total', { total })}
        totalTestId="journal-total"
        pageSizeLabel={t('maintain.history.pageSize')}
        pageSizes={JOURNAL_PAGE_SIZES}
        pageSize={pageSize}
        onPageSize={(size) => {
          setPageSize(size);
          setPage(1);
        }}
        page={page}
        pages={pages}
        onPage={setPage}
      />

      <JournalDrawer view={view} onClose={() => setView(null)} onRevert={canRevert ? setPendingRevert : undefined} />

      <Modal
        opened={pendingRevert !== null}
        onClose={() => !reverting && setPendingRevert(null)}
        title={t('maintain.history.revertTitle')}
        centered
        zIndex={400}
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        <Stack>
          <Text>
            {pendingRevert &&
              t('maintain.history.revertText', { id: String(pendingRevert.id), time: formatTime(pendingRevert.at, i18n.language) })}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" data-testid="journal-revert-cancel" disabled={reverting} onClick={() => setPendingRevert(null)}>
              {t('common.cancel')}
            </Button>
            <Button color="orange" data-testid="journal-revert-ok" loading={reverting} onClick={() => void confirmRevert()}>
              {t('maintain.history.revertOk')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
