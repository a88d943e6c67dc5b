/** @jsxImportSource preact */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { portalApi, safeUrl, type PortalSession } from '../portal-api.js';
import { formatBytesRemaining, formatTimeRemaining } from '../portal-format.js';
import { useI18n } from '../portal-i18n.js';
import { useLoad } from '../portal-load.js';
import { useNavigation, useQueryParam } from '../portal-navigation.js';
import { FormMessage, Link, LoadFailed, Loading, PageCard } from '../portal-ui.js';

/** How often the quota is read again while the page is open (bytes change server-side). */
export const SESSION_REFRESH_MS = 60_000;

/** /auth/success: time and data left, counting down, with a logout. */
export function AuthSuccessPage() {
  const { t } = useI18n();
  const [state, reload] = useLoad(portalApi.state);
  const [loggedOut, setLoggedOut] = useState(false);
  if (loggedOut) {
    return (
      <PageCard title={t('portal.success.loggedOut')} testId="auth-logged-out">
        <p class="links">
          <Link href="/auth/portal">{t('portal.success.signIn')}</Link>
        </p>
      </PageCard>
    );
  }
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'failed') return <LoadFailed messageKey={state.msg} onRetry={reload} />;
  if (!state.data.authorized || !state.data.session) {
    return (
      <PageCard title={t('portal.success.notConnected')} testId="auth-not-connected">
        <p class="links">
          <Link href="/auth/portal">{t('portal.success.signIn')}</Link>
        </p>
      </PageCard>
    );
  }
  return <SessionView session={state.data.session} onRefresh={reload} onLoggedOut={() => setLoggedOut(true)} />;
}

function SessionView({ session, onRefresh, onLoggedOut }: { session: PortalSession; onRefresh: () => void; onLoggedOut: () => void }) {
  const { t, lang } = useI18n();
  const { navigate } = useNavigation();
  const continueUrl = safeUrl(useQueryParam('url'));
  const [now, setNow] = useState(() => Date.now());
  // Each fresh reading of the session restarts the local countdown from its figures.
  const since = useMemo(() => Date.now(), [session]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const limited = session.secondsRemaining !== null;
  const left = limited ? Math.max(0, session.secondsRemaining! - Math.floor(Math.max(0, now - since) / 1000)) : null;
  const expired = left === 0 || session.bytesRemaining === 0;

  useEffect(() => {
    const tick = limited ? setInterval(() => setNow(Date.now()), 1000) : undefined;
    const refresh = setInterval(onRefresh, SESSION_REFRESH_MS);
    return () => {
      if (tick !== undefined) clearInterval(tick);
      clearInterval(refresh);
    };
  }, [limited, onRefresh]);

  useEffect(() => {
    if (expired) navigate('/notice/expired');
  }, [expired, navigate]);

  const logout = async () => {
    setBusy(true);
    const result = await portalApi.logout();
    setBusy(false);
    if (result.ok) onLoggedOut();
    else setError(result.msg);
  };

  return (
    <PageCard title={t('portal.success.title')} testId="auth-success">
      <dl class="facts">
        {session.username && <Fact label={t('portal.success.account')} value={session.username} testId="session-username" />}
        {session.plan && <Fact label={t('portal.success.plan')} value={session.plan} testId="session-plan" />}
        <Fact label={t('portal.success.timeRemaining')} value={formatTimeRemaining(left, t, lang)} testId="session-time" live />
        <Fact label={t('portal.success.bytesRemaining')} value={formatBytesRemaining(session.bytesRemaining, t)} testId="session-bytes" />
      </dl>
      <FormMessage messageKey={error} />
      {continueUrl && (
        <p class="links">
          <a href={continueUrl} rel="noreferrer" data-testid="session-continue">
            {t('portal.success.continue')}
          </a>
        </p>
      )}
      <button type="button" class="secondary" disabled={busy} onClick={logout} data-testid="session-logout">
        {busy ? t('portal.success.loggingOut') : t('portal.success.logout')}
      </button>
    </PageCard>
  );
}

export function Fact({ label, value, testId, live }: { label: string; value: string; testId: string; live?: boolean }) {
  return (
    <div class="fact">
      <dt>{label}</dt>
      {/* The countdown changes every second: announced politely only when read, not per tick. */}
      <dd data-testid={testId} aria-live={live ? 'off' : undefined}>
        {value}
      </dd>
    </div>
  );
}
