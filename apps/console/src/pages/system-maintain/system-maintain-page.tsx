import { useCallback, useEffect, useRef, useState } from 'react';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import '@mantine/core/styles/Drawer.css';
import '@mantine/core/styles/SimpleGrid.css';
import { useTranslation } from 'react-i18next';
import { useCurrentRoute } from '../../routes/current-route.js';
import { JournalSection } from './journal-section.js';
import { FirmwareSection } from './firmware-section.js';
import { BackupRestoreSection } from './backup-restore-section.js';
import { DeviceRestartSection } from './device-restart-section.js';
import { RestartProgressModal } from './restart-progress-modal.js';
import {
  deviceAnswers,
  fetchBackupStatus,
  parseRestartInfo,
  requestFactoryReset,
  requestReboot,
  type BackupStatus,
  type RestoreResult,
} from './maintain-api.js';
import { startProgress, watchForDevice, type ProgressState } from './maintain-progress.js';
import { MenuPageHeading } from '../../shell/page-heading.js';

/** Time the "device is back" line stays before the page reloads. */
const RELOAD_DELAY_MS = 1500;

/**
 * System → Maintenance: configuration backup and restore, reboot and factory reset, and the
 * configuration history (list, changes, compare, revert), and firmware upgrade.
 */
export default function SystemMaintainPage() {
  const { t } = useTranslation();
  const route = useCurrentRoute();
  const permission = route?.permission;
  const canModify = permission === 'modify';
  const canAct = canModify || permission === 'access';

  const [status, setStatus] = useState<BackupStatus | null>(null);
  const [progress, setProgress] = useState<ProgressState | null>(null);
  const [restored, setRestored] = useState<RestoreResult | null>(null);
  const [journalKey, setJournalKey] = useState(0);
  const stopWatch = useRef<(() => void) | null>(null);

  const reloadStatus = useCallback(() => {
    fetchBackupStatus()
      .then(setStatus)
      .catch(() => {
        // Reported by the API client.
      });
  }, []);

  useEffect(() => {
    reloadStatus();
    return () => stopWatch.current?.();
  }, [reloadStatus]);

  /** Counts until the device answers again, then reloads the console. */
  const followRestart = useCallback((kind: 'reboot' | 'reset' | 'upgrade', data: unknown) => {
    const info = parseRestartInfo(data);
    setProgress(startProgress(kind, Date.now(), info.expectedSeconds));
    stopWatch.current?.();
    stopWatch.current = watchForDevice({
      answers: deviceAnswers,
      onBack: () => {
        setProgress((current) => (current ? { ...current, phase: 'back' } : current));
        setTimeout(() => window.location.reload(), RELOAD_DELAY_MS);
      },
    });
  }, []);

  const followUpgrade = useCallback((expectedSeconds: number) => followRestart('upgrade', { expectedSeconds }), [followRestart]);

  async function reboot() {
    setRestored(null);
    const reply = await requestReboot();
    if (reply.success) followRestart('reboot', reply.data);
  }

  async function reset() {
    const reply = await requestFactoryReset();
    if (reply.success) followRestart('reset', reply.data);
  }

  function uploading(on: boolean) {
    setProgress((current) => (on ? (current ?? startProgress('upload', Date.now())) : current?.kind === 'upload' ? null : current));
  }

  function onRestored(result: RestoreResult) {
    setRestored(result);
    setJournalKey((n) => n + 1);
    reloadStatus();
  }

  return (
    <Stack gap="lg" data-testid="system-maintain">
      <MenuPageHeading />
      <BackupRestoreSection status={status} canDownload={canAct} canRestore={canModify} onUploading={uploading} onRestored={onRestored} />
      <DeviceRestartSection canReboot={canAct} canReset={canModify} busy={progress !== null} onReboot={reboot} onReset={reset} />
      <JournalSection key={journalKey} canRevert={canModify} />
      <FirmwareSection canAct={canAct} canModify={canModify} onRestart={followUpgrade} />

      <RestartProgressModal progress={progress} />

      <Modal
        opened={restored !== null && progress === null}
        onClose={() => setRestored(null)}
        title={t('maintain.restore.doneTitle')}
        centered
        zIndex={400}
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        <Stack data-testid="restore-done">
          <Text>
            {restored?.revision !== null && restored?.revision !== undefined
              ? t('maintain.restore.doneText', { revision: String(restored.revision) })
              : t('maintain.restore.doneSame')}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRestored(null)} data-testid="restore-later">
              {t('maintain.restore.later')}
            </Button>
            <Button color="orange" disabled={!canAct} onClick={() => void reboot()} data-testid="restore-reboot">
              {t('maintain.restore.rebootNow')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
