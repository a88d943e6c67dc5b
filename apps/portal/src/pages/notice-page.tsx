/** @jsxImportSource preact */
import { portalApi } from '../portal-api.js';
import { useI18n } from '../portal-i18n.js';
import { useLoad } from '../portal-load.js';
import { Link, LoadFailed, Loading, PageCard, ZoneText } from '../portal-ui.js';

/** /notice/expired: the operator's expiry text (or ours) and where to renew. */
export function ExpiredNoticePage() {
  const { t } = useI18n();
  const [state, reload] = useLoad(portalApi.expiredNotice);
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'failed') return <LoadFailed messageKey={state.msg} onRetry={reload} />;
  const { content, renewUrl } = state.data;
  return (
    <PageCard title={t('portal.notice.expiredTitle')} testId="notice-expired">
      <ZoneText text={content?.trim() ? content : t('portal.notice.expiredDefault')} testId="notice-content" />
      <p class="links">
        {renewUrl && (
          <a href={renewUrl} rel="noreferrer" class="button-link" data-testid="notice-renew">
            {t('portal.notice.renew')}
          </a>
        )}
        <Link href="/auth/portal">{t('portal.success.signIn')}</Link>
      </p>
    </PageCard>
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
