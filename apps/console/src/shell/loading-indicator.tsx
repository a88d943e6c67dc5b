import { useTranslation } from 'react-i18next';
import { useLoadingStore } from '../state/loading-store.js';

/** A thin bar across the top edge. */
export function LoadingBar({ active }: { active: boolean }) {
  const { t } = useTranslation();
  if (!active) return null;
  return (
    <div className="console-progress" role="progressbar" aria-busy="true" aria-label={t('common.working')} data-testid="loading-indicator">
      <div className="console-progress-bar" />
    </div>
  );
}

/** Shown while any write is in flight (spec §4: update calls show a loading indicator). */
export function LoadingIndicator() {
  const pending = useLoadingStore((s) => s.pending);
  return <LoadingBar active={pending > 0} />;
}
