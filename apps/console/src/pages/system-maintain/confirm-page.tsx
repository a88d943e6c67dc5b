import { useEffect, useState } from 'react';
import { Alert, Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { LOGIN_PATH } from '../../routes/navigation.js';
import {
  CONFIRM_PAGE_PATH,
  isGoneReply,
  readConfirmStatus,
  sendConfirm,
  sendRevert,
  tokenFromHash,
} from '../../shell/apply-confirm-actions.js';
import { PublicFrame } from '../../shell/public-frame.js';
import { secondsLeft, useApplyConfirmStore } from '../../state/apply-confirm-store.js';

/**
 * What the page knows: still asking the device, waiting (with a deadline when the device
 * answered), nothing waiting, or the result of a button.
 */
export type ConfirmPageState =
  | { kind: 'checking' }
  | { kind: 'waiting'; deadline: number | null }
  | { kind: 'none' }
  | { kind: 'confirmed' }
  | { kind: 'reverted' }
  | { kind: 'expired' }
  | { kind: 'gone' };

const RESULT_TEXT = {
  none: 'maintain.confirmPage.none',
  confirmed: 'maintain.confirmPage.confirmed',
  reverted: 'maintain.confirmPage.reverted',
  expired: 'maintain.confirmPage.expired',
  gone: 'maintain.confirmPage.gone',
} as const;

interface ViewProps {
  token: string;
  state: ConfirmPageState;
  now: number;
  busy: 'confirm' | 'revert' | null;
  onConfirm: () => void;
  onRevert: () => void;
}

/** The page's content for a state; the buttons show whenever the device may still wait. */
export function ConfirmPageView({ token, state, now, busy, onConfirm, onRevert }: ViewProps) {
  const { t } = useTranslation();
  if (!token) {
    return (
      <Alert color="gray" variant="light" data-testid="confirm-no-token">
        {t('maintain.confirmPage.noToken', { path: `${CONFIRM_PAGE_PATH}#…` })}
      </Alert>
    );
  }
  if (state.kind !== 'checking' && state.kind !== 'waiting') {
    return (
      <Stack gap="md">
        <Alert color={state.kind === 'confirmed' ? 'teal' : 'gray'} variant="light" data-testid={`confirm-result-${state.kind}`}>
          {t(RESULT_TEXT[state.kind])}
        </Alert>
        <Anchor component={Link} to={LOGIN_PATH} data-testid="confirm-sign-in">
          {t('maintain.confirmPage.signIn')}
        </Anchor>
      </Stack>
    );
  }
  const deadline = state.kind === 'waiting' ? state.deadline : null;
  return (
    <Stack gap="md">
      <Text size="sm">{t('maintain.confirmPage.text')}</Text>
      {deadline !== null && (
        <Group gap={6} align="baseline">
          <Text size="sm">{t('maintain.confirm.timeLeft')}</Text>
          <Text fw={700} size="xl" data-testid="confirm-seconds">
            {secondsLeft(deadline, now)}
          </Text>
          <Text size="sm">{t('maintain.confirm.secondsUnit')}</Text>
        </Group>
      )}
      <Group gap="sm" grow>
        <Button color="teal" data-testid="confirm-ok" loading={busy === 'confirm'} disabled={busy !== null} onClick={onConfirm}>
          {t('maintain.confirm.ok')}
        </Button>
        <Button color="red" variant="outline" data-testid="confirm-revert" loading={busy === 'revert'} disabled={busy !== null} onClick={onRevert}>
          {t('maintain.confirm.revert')}
        </Button>
      </Group>
    </Stack>
  );
}

/**
 * Public page `/confirm#<token>`: confirms or reverts a change waiting for confirmation
 * without a session, typically opened on the device's new address after the change moved
 * it. The token is read from the hash, which browsers never send to the server.
 */
export default function ConfirmPage() {
  const { t } = useTranslation();
  const { hash } = useLocation();
  const token = tokenFromHash(hash);
  const [state, setState] = useState<ConfirmPageState>({ kind: 'checking' });
  const [busy, setBusy] = useState<'confirm' | 'revert' | null>(null);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    if (!token) return;
    const store = useApplyConfirmStore.getState();
    store.restore();
    const own = useApplyConfirmStore.getState().pending;
    // GET sysconf/confirm needs a session, and a request without one would leave this page
    // for the sign-in. Only the tab that made the change here is known to have one; on the
    // device's new address there is none, and the two buttons are all the page offers.
    if (own?.token !== token) {
      setState({ kind: 'waiting', deadline: null });
      return;
    }
    setState({ kind: 'waiting', deadline: own.deadline });
    let current = true;
    readConfirmStatus()
      .then((status) => {
        if (!current) return;
        const deadline = status.secondsLeft === null ? own.deadline : Date.now() + status.secondsLeft * 1000;
        setState(status.pending ? { kind: 'waiting', deadline } : { kind: 'none' });
      })
      .catch(() => {
        // Reported by the client; the countdown goes on from what this tab remembered.
      });
    return () => {
      current = false;
    };
  }, [token]);

  const deadline = state.kind === 'waiting' ? state.deadline : null;
  useEffect(() => {
    if (deadline === null) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [deadline]);

  useEffect(() => {
    if (deadline !== null && secondsLeft(deadline, now) === 0) setState({ kind: 'expired' });
  }, [deadline, now]);

  const finish = (kind: 'confirmed' | 'reverted') => {
    // This tab's own bar (same address) no longer has anything to wait for.
    const store = useApplyConfirmStore.getState();
    if (store.pending?.token === token) store.clear();
    setState({ kind });
  };

  const act = async (which: 'confirm' | 'revert') => {
    setBusy(which);
    try {
      const reply = which === 'confirm' ? await sendConfirm(token) : await sendRevert(token);
      if (reply.success) finish(which === 'confirm' ? 'confirmed' : 'reverted');
      else if (isGoneReply(reply)) setState({ kind: 'gone' });
    } catch {
      // Reported by the client; the buttons stay.
    } finally {
      setBusy(null);
    }
  };

  return (
    <PublicFrame title={t('maintain.confirmPage.title')}>
      <div data-testid="confirm-page">
        <ConfirmPageView
          token={token}
          state={state}
          now={now}
          busy={busy}
          onConfirm={() => void act('confirm')}
          onRevert={() => void act('revert')}
        />
      </div>
    </PublicFrame>
  );
}
