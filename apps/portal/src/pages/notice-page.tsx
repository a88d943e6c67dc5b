/** @jsxImportSource preact */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { portalApi, safeUrl, type ExpiredNotice, type PortalSession } from '../portal-api.js';
import { formatBytesRemaining, formatTimeRemaining } from '../portal-format.js';
import { useI18n } from '../portal-i18n.js';
import { useLoad } from '../portal-load.js';
import { useQueryParam } from '../portal-navigation.js';
import { Link, LoadFailed, Loading, PageCard, ZoneText } from '../portal-ui.js';
import { Fact } from './auth-success-page.js';

/** Seconds a reminder with `refresh` stays before it returns to the page the client asked for. */
export const REMINDER_RETURN_SECONDS = 10;

/** The notice's frame: the card with its title, or (`simple` template) the text alone. */
function NoticeFrame({ notice, title, testId, children }: { notice: ExpiredNotice; title: string; testId: string; children: ComponentChildren }) {
  if (notice.template === 'default') return <PageCard title={title} testId={testId}>{children}</PageCard>;
  return (
    <section class="card notice-simple" aria-label={title} data-testid={testId}>
      {children}
    </section>
  );
}

function RenewLink({ url }: { url?: string }) {
  const { t } = useI18n();
  if (!url) return null;
  return (
    <a href={url} rel="noreferrer" class="button-link" data-testid="notice-renew">
      {t('portal.notice.renew')}
    </a>
  );
}

/**
 * /notice/expired: the operator's expiry text (or ours) and where to renew. A client still
 * online was sent here to be reminded that its access runs out: it sees what is left and goes
 * on to the page it asked for (by itself after a few seconds when the reminder says `refresh`).
 */
export function ExpiredNoticePage() {
  const [state, reload] = useLoad(portalApi.expiredNotice);
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'failed') return <LoadFailed messageKey={state.msg} onRetry={reload} />;
  const notice = state.data;
  return notice.session ? <ReminderView notice={notice} session={notice.session} /> : <ExpiredView notice={notice} />;
}

function ExpiredView({ notice }: { notice: ExpiredNotice }) {
  const { t } = useI18n();
  return (
    <NoticeFrame notice={notice} title={t('portal.notice.expiredTitle')} testId="notice-expired">
      <ZoneText text={notice.content?.trim() ? notice.content : t('portal.notice.expiredDefault')} testId="notice-content" />
      <p class="links">
        <RenewLink url={notice.renewUrl} />
        <Link href="/auth/portal">{t('portal.success.signIn')}</Link>
      </p>
    </NoticeFrame>
  );
}

function ReminderView({ notice, session }: { notice: ExpiredNotice; session: PortalSession }) {
  const { t, lang } = useI18n();
  const continueUrl = safeUrl(useQueryParam('url'));
  const returning = notice.refresh && continueUrl !== undefined;
  const [wait, setWait] = useState(REMINDER_RETURN_SECONDS);

  useEffect(() => {
    if (!returning) return undefined;
    const timer = setInterval(() => setWait((left) => Math.max(0, left - 1)), 1000);
    return () => clearInterval(timer);
  }, [returning]);

  useEffect(() => {
    if (returning && wait === 0 && continueUrl) globalThis.location.assign(continueUrl);
  }, [returning, wait, continueUrl]);

  return (
    <NoticeFrame notice={notice} title={t('portal.notice.reminderTitle')} testId="notice-reminder">
      <ZoneText text={notice.content?.trim() ? notice.content : t('portal.notice.reminderDefault')} testId="notice-content" />
      {notice.template === 'default' && (
        <dl class="facts">
          <Fact label={t('portal.success.timeRemaining')} value={formatTimeRemaining(session.secondsRemaining, t, lang)} testId="notice-time" />
          <Fact label={t('portal.success.bytesRemaining')} value={formatBytesRemaining(session.bytesRemaining, t)} testId="notice-bytes" />
        </dl>
      )}
      {returning && (
        <p class="hint" role="status" data-testid="notice-returning">
          {t('portal.notice.returning', { count: wait })}
        </p>
      )}
      <p class="links">
        <RenewLink url={notice.renewUrl} />
        {continueUrl && (
          <a href={continueUrl} rel="noreferrer" data-testid="notice-continue">
            {t('portal.success.continue')}
          </a>
        )}
      </p>
    </NoticeFrame>
  );
}

/** /notice/local: the operator's local notice, as plain text. */
export function LocalNoticePage() {
  const { t } = useI18n();
  const [state, reload] = useLoad(portalApi.localNotice);
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'failed') return <LoadFailed messageKey={state.msg} onRetry={reload} />;
  const { content } = state.data;
  return (
    <PageCard title={t('portal.notice.localTitle')} testId="notice-local">
      {content.trim() ? (
        <ZoneText text={content} testId="notice-content" />
      ) : (
        <p class="hint" data-testid="notice-empty">
          {t('portal.notice.localEmpty')}
        </p>
      )}
    </PageCard>
  );
}
