import { useEffect, useState, type CSSProperties } from 'react';
import { Alert, Button, Group, Loader, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { secondsLeft, useApplyConfirmStore, type ApplyConfirmOutcome } from '../state/apply-confirm-store.js';
import { confirmPageLink, confirmPending, restoreAndReload, revertPending, syncPending } from './apply-confirm-actions.js';

/**
 * Kept in the first load on purpose: a change that cuts this address off must still show
 * its countdown and the link for the new address, and a lazily loaded chunk could no longer
 * be fetched by then.
 */

/**
 * Stays in view below the header while the page scrolls. The light alert colour is
 * translucent, so it is laid over the page background to keep the content below hidden.
 */
const STICKY: CSSProperties = {
  position: 'sticky',
  top: 'calc(var(--app-shell-header-offset, 0rem) + var(--mantine-spacing-xs))',
  zIndex: 150,
  backgroundColor: 'var(--mantine-color-body)',
  backgroundImage: 'linear-gradient(var(--mantine-color-orange-light), var(--mantine-color-orange-light))',
  boxShadow: 'var(--mantine-shadow-sm)',
};

const RESTORING_TEXT: Record<ApplyConfirmOutcome, string> = {
  expired: 'maintain.confirm.restoring',
  reverted: 'maintain.confirm.reverting',
  gone: 'maintain.confirm.goneReloading',
};

const OUTCOME_TEXT: Record<ApplyConfirmOutcome, string> = {
  expired: 'maintain.confirm.expired',
  reverted: 'maintain.confirm.revertedNow',
  gone: 'maintain.confirm.gone',
};

interface ViewProps {
  seconds: number;
  token: string;
  busy: 'confirm' | 'revert' | null;
  onConfirm: () => void;
  onRevert: () => void;
}

/** The bar itself: the countdown, the two actions and the way to confirm from elsewhere. */
export function ApplyConfirmBarView({ seconds, token, busy, onConfirm, onRevert }: ViewProps) {
  const { t } = useTranslation();
  return (
    <Alert
      color="orange"
      variant="light"
      role="region"
      aria-label={t('maintain.confirm.title')}
      title={t('maintain.confirm.title')}
      mb="md"
      style={{ ...STICKY, border: '1px solid var(--mantine-color-orange-outline)' }}
      data-testid="apply-confirm-bar"
    >
      <Group justify="space-between" align="center" wrap="wrap" gap="sm">
        <Stack gap={4} style={{ flex: '1 1 320px', minWidth: 0 }}>
          <Text size="sm">{t('maintain.confirm.text')}</Text>
          <Group gap={6} align="baseline">
            <Text size="sm">{t('maintain.confirm.timeLeft')}</Text>
            <Text fw={700} size="xl" data-testid="apply-confirm-seconds">
              {seconds}
            </Text>
            <Text size="sm">{t('maintain.confirm.secondsUnit')}</Text>
          </Group>
          <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }} data-testid="apply-confirm-link">
            {t('maintain.confirm.otherAddress', { path: confirmPageLink(token) })}
          </Text>
        </Stack>
        <Group gap="xs">
          <Button color="teal" data-testid="apply-confirm-ok" loading={busy === 'confirm'} disabled={busy !== null} onClick={onConfirm}>
            {t('maintain.confirm.ok')}
          </Button>
          <Button
            color="red"
            variant="outline"
            data-testid="apply-confirm-revert"
            loading={busy === 'revert'}
            disabled={busy !== null}
            onClick={onRevert}
          >
            {t('maintain.confirm.revert')}
          </Button>
        </Group>
      </Group>
    </Alert>
  );
}

/** The change is being put back; the page reloads when the device is done. */
export function ApplyConfirmRestoring({ outcome }: { outcome: ApplyConfirmOutcome | null }) {
  const { t } = useTranslation();
  return (
    <Alert color="orange" variant="light" mb="md" style={STICKY} data-testid="apply-confirm-restoring">
      <Group gap="sm" wrap="nowrap">
        <Loader size="sm" color="orange" aria-label={t('common.loading')} />
        <Text size="sm">{t(RESTORING_TEXT[outcome ?? 'expired'])}</Text>
      </Group>
    </Alert>
  );
}

/** Said once after the reload that followed a change being put back. */
export function ApplyConfirmOutcomeNotice({ outcome, onClose }: { outcome: ApplyConfirmOutcome; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Alert
      color={outcome === 'reverted' ? 'blue' : 'orange'}
      variant="light"
      mb="md"
      withCloseButton
      closeButtonLabel={t('common.close')}
      onClose={onClose}
      data-testid="apply-confirm-outcome"
    >
      {t(OUTCOME_TEXT[outcome])}
    </Alert>
  );
}

/** Ticks while a deadline runs; stops when there is none. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

/**
 * The apply-confirmation bar of the shell (DESIGN §4). A write whose reply carried
 * `data.confirm` shows it with a live countdown; at zero the device has put the previous
 * configuration back, so the page says so and reloads. A token still in time is shown again
 * after a reload.
 */
export function ApplyConfirmBanner() {
  const pending = useApplyConfirmStore((s) => s.pending);
  const restoring = useApplyConfirmStore((s) => s.restoring);
  const outcome = useApplyConfirmStore((s) => s.outcome);
  const [busy, setBusy] = useState<'confirm' | 'revert' | null>(null);
  const now = useNow(pending !== null);
  // The deadline can move (resync with the device) between two ticks: never count from a
  // moment older than the present, or the bar would briefly show a second more.
  const seconds = pending ? secondsLeft(pending.deadline, Math.max(now, Date.now())) : 0;

  useEffect(() => {
    useApplyConfirmStore.getState().restore();
    void syncPending();
  }, []);

  useEffect(() => {
    if (pending && seconds === 0) void restoreAndReload('expired');
  }, [pending, seconds]);

  const run = (which: 'confirm' | 'revert', action: () => Promise<void>) => {
    setBusy(which);
    void action().finally(() => setBusy(null));
  };

  if (restoring) return <ApplyConfirmRestoring outcome={outcome} />;
  if (pending) {
    return (
      <ApplyConfirmBarView
        seconds={seconds}
        token={pending.token}
        busy={busy}
        onConfirm={() => run('confirm', () => confirmPending())}
        onRevert={() => run('revert', () => revertPending())}
      />
    );
  }
  if (outcome) return <ApplyConfirmOutcomeNotice outcome={outcome} onClose={() => useApplyConfirmStore.getState().dismissOutcome()} />;
  return null;
}
