import { useEffect, useState } from 'react';
import { Alert, Loader, Modal, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { FACTORY_ADDRESS_URL } from './maintain-model.js';
import { elapsedSeconds, isLate, progressKey, type ProgressState } from './maintain-progress.js';

/**
 * The progress text with its counter ("Rebooting… 37 s") while an upload is checked or the
 * device restarts. It cannot be closed while the device is away: the page behind it would
 * only show failures.
 */
export function RestartProgressModal({ progress }: { progress: ProgressState | null }) {
  const { t } = useTranslation();
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    if (!progress) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [progress]);

  const seconds = progress ? elapsedSeconds(progress, now) : 0;
  const late = progress ? progress.phase === 'late' || isLate(progress, now) : false;

  return (
    <Modal
      opened={progress !== null}
      onClose={() => undefined}
      withCloseButton={false}
      closeOnClickOutside={false}
      closeOnEscape={false}
      centered
      zIndex={500}
      title={progress ? t(`maintain.progress.title.${progress.kind}`) : ''}
    >
      {progress && (
        <Stack gap="sm" data-testid="maintain-progress" data-kind={progress.kind} data-phase={progress.phase}>
          {progress.phase === 'back' ? (
            <Text data-testid="maintain-progress-back">{t('maintain.progress.back')}</Text>
          ) : (
            <Stack gap={6} align="center">
              <Loader size="sm" />
              <Text fw={500} data-testid="maintain-progress-text" aria-live="polite">
                {t(progressKey(progress.kind), { seconds })}
              </Text>
            </Stack>
          )}
          {progress.expectedSeconds !== null && progress.phase !== 'back' && (
            <Text size="sm" c="dimmed">
              {t('maintain.progress.expected', { seconds: progress.expectedSeconds })}
            </Text>
          )}
          {progress.kind === 'reset' && progress.phase !== 'back' && (
            <Text size="sm" c="dimmed">
              {t('maintain.progress.factoryAddress', { address: FACTORY_ADDRESS_URL })}
            </Text>
          )}
          {late && (
            <Alert color="orange" variant="light" data-testid="maintain-progress-late">
              {t('maintain.progress.late', { address: progress.kind === 'reset' ? FACTORY_ADDRESS_URL : window.location.origin })}
            </Alert>
          )}
        </Stack>
      )}
    </Modal>
  );
}
