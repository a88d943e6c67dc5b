import { useState } from 'react';
import { Alert, Button, Card, FileInput, Group, Modal, PasswordInput, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { showSuccessNotice } from '../../shell/notice.js';
import { downloadBackup, uploadBackup, type BackupStatus, type RestoreResult } from './maintain-api.js';
import { BACKUP_ACCEPT, limitMiB, passphraseProblem } from './maintain-model.js';

interface Props {
  status: BackupStatus | null;
  canDownload: boolean;
  canRestore: boolean;
  /** Shows the upload's progress counter; ended with null. */
  onUploading: (uploading: boolean) => void;
  /** A restore was stored: the page asks whether to reboot. */
  onRestored: (result: RestoreResult) => void;
}

/**
 * Download the configuration as a file and restore one. The download is sealed with this
 * device's key unless a passphrase is given (to move the configuration to another device).
 */
export function BackupRestoreSection({ status, canDownload, canRestore, onUploading, onRestored }: Props) {
  const { t } = useTranslation();
  const [downloadPassphrase, setDownloadPassphrase] = useState('');
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const [downloading, setDownloading] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [restorePassphrase, setRestorePassphrase] = useState('');
  const [restoreError, setRestoreError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [uploading, setUploading] = useState(false);

  async function download() {
    const problem = passphraseProblem(downloadPassphrase, false);
    setDownloadError(problem);
    if (problem || downloading) return;
    setDownloading(true);
    try {
      if (await downloadBackup(downloadPassphrase)) {
        showSuccessNotice(t(downloadPassphrase ? 'maintain.backup.downloadedPassphrase' : 'maintain.backup.downloaded'));
      }
    } finally {
      setDownloading(false);
    }
  }

  function askRestore() {
    const problem = passphraseProblem(restorePassphrase, false);
    setRestoreError(problem);
    if (!file || problem) return;
    setConfirming(true);
  }

  async function restore() {
    if (!file || uploading) return;
    setConfirming(false);
    setUploading(true);
    onUploading(true);
    try {
      const reply = await uploadBackup(file, restorePassphrase);
      onUploading(false);
      if (reply?.success && reply.data) {
        setFile(null);
        setRestorePassphrase('');
        onRestored(reply.data);
      }
    } finally {
      setUploading(false);
      onUploading(false);
    }
  }

  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
      <Card withBorder padding="md" data-testid="maintain-backup">
        <Stack gap="sm">
          <Title order={4}>{t('maintain.backup.title')}</Title>
          <Text size="sm" c="dimmed">
            {t('maintain.backup.text')}
          </Text>
          <PasswordInput
            label={t('maintain.backup.passphrase')}
            description={t('maintain.backup.passphraseHelp')}
            value={downloadPassphrase}
            onChange={(event) => setDownloadPassphrase(event.currentTarget.value)}
            error={downloadError ? t(downloadError) : undefined}
            autoComplete="new-password"
            disabled={!canDownload}
            data-testid="backup-passphrase"
          />
          <Group justify="flex-end">
            <Button onClick={() => void download()} loading={downloading} disabled={!canDownload} data-testid="backup-download">
              {t('maintain.backup.download')}
            </Button>
          </Group>
        </Stack>
      </Card>

      <Card withBorder padding="md" data-testid="maintain-restore">
        <Stack gap="sm">
          <Title order={4}>{t('maintain.restore.title')}</Title>
          <Text size="sm" c="dimmed">
            {t('maintain.restore.text')}
          </Text>
          {status?.rebootRequired && (
            <Alert color="orange" variant="light" data-testid="restore-reboot-pending">
              {t(status.reason === 'reset' ? 'maintain.restore.resetPending' : 'maintain.restore.pending')}
            </Alert>
          )}
          <FileInput
            label={t('maintain.restore.file')}
            description={t('maintain.restore.fileHelp', { size: limitMiB(status?.uploadLimit ?? 12 * 1024 * 1024) })}
            placeholder={t('maintain.restore.filePlaceholder')}
            accept={BACKUP_ACCEPT}
            value={file}
            clearable
            disabled={!canRestore}
            data-testid="restore-file"
            onChange={setFile}
          />
          <PasswordInput
            label={t('maintain.restore.passphrase')}
            description={t('maintain.restore.passphraseHelp')}
            value={restorePassphrase}
            onChange={(event) => setRestorePassphrase(event.currentTarget.value)}
            error={restoreError ? t(restoreError) : undefined}
            autoComplete="off"
            disabled={!canRestore}
            data-testid="restore-passphrase"
          />
          <Group justify="flex-end">
            <Button color="orange" onClick={askRestore} loading={uploading} disabled={!canRestore || !file} data-testid="restore-upload">
              {t('maintain.restore.upload')}
            </Button>
          </Group>
        </Stack>
      </Card>

      <Modal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title={t('maintain.restore.confirmTitle')}
        centered
        zIndex={400}
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        <Stack>
          <Text>{t('maintain.restore.confirmText', { file: file?.name ?? '' })}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)} data-testid="restore-cancel">
              {t('common.cancel')}
            </Button>
            <Button color="orange" onClick={() => void restore()} data-testid="restore-ok">
              {t('maintain.restore.confirmOk')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </SimpleGrid>
  );
}
