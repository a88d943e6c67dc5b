import { useCallback, useEffect, useRef, useState } from 'react';
import { Alert, Button, Card, Checkbox, FileInput, Group, Loader, Modal, Progress, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatBytes } from '@portico/schema';
import { translateMessage } from '../../i18n/console-i18n.js';
import { FACTORY_ADDRESS_URL } from './maintain-model.js';
import {
  checkFile,
  checkVersion,
  downloadFirmware,
  percentOf,
  pollFirmware,
  upgradeFirmware,
  uploadFirmware,
  type FirmwareStatus,
} from './firmware-api.js';

/** Time between two questions while a step runs. */
const POLL_MS = 1000;

interface Props {
  canAct: boolean;
  canModify: boolean;
  /** The device went down to restart into the new firmware: the page counts until it is back. */
  onRestart: (expectedSeconds: number) => void;
}

/**
 * Firmware upgrade (spec §4): check the update server → "no new version" or offer to
 * download the named version → download with its progress → file check → ask to upgrade now,
 * keeping the configuration unless unticked; or upload a file. Every step runs on the device
 * and is polled, so a reload finds it running with its counter.
 */
export function FirmwareSection({ canAct, canModify, onRestart }: Props) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<FirmwareStatus | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [asking, setAsking] = useState(false);
  const [keepConfig, setKeepConfig] = useState(true);
  const previous = useRef<FirmwareStatus | null>(null);
  const restarting = useRef(false);

  const restart = useCallback(() => {
    if (restarting.current) return;
    restarting.current = true;
    onRestart(previous.current?.restartSeconds ?? 60);
  }, [onRestart]);

  /** What follows a finished step: a stored file is checked at once, a finished upgrade restarts. */
  const take = useCallback(
    (next: FirmwareStatus) => {
      const before = previous.current;
      previous.current = next;
      setStatus(next);
      if (!before?.running || next.running || next.error) return;
      if ((before.operation === 'download' || before.operation === 'upload') && next.file && !next.file.verified && canAct) {
        void checkFile().then((reply) => {
          if (reply.success && reply.data) take(reply.data);
        });
      }
      if (before.operation === 'upgrade' && next.upgraded) restart();
    },
    [canAct, restart],
  );

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    const ask = async () => {
      const answer = await pollFirmware(controller.signal);
      if (stopped) return;
      if (answer.kind === 'restarting' && previous.current?.operation === 'upgrade') {
        restart();
        return;
      }
      if (answer.kind === 'status') take(answer.status);
      // A device restarting for another reason, or out of reach: ask again until it answers.
      if (answer.kind !== 'status' || answer.status.running) timer = setTimeout(() => void ask(), POLL_MS);
    };
    // Ask now, then keep asking while a step runs.
    if (status === null || status.running) void ask();
    return () => {
      stopped = true;
      controller.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
    // The poll restarts when a step starts or ends, not on each answer.
  }, [status === null || status.running, take, restart]); // eslint-disable-line react-hooks/exhaustive-deps

  async function run(step: () => Promise<{ success: boolean; data?: FirmwareStatus }>) {
    const reply = await step();
    if (reply.success && reply.data) take(reply.data);
  }

  async function upload() {
    if (!file) return;
    const reply = await uploadFirmware(file);
    setFile(null);
    if (reply?.success && reply.data) take({ ...reply.data, running: false });
    // A stored upload is checked at once, as a download is.
    if (reply?.success && canAct) await run(checkFile);
  }

  async function upgrade() {
    setAsking(false);
    await run(() => upgradeFirmware(keepConfig));
  }

  if (!status) {
    return (
      <Card withBorder padding="md" data-testid="maintain-firmware">
        <Title order={4}>{t('maintain.firmware.title')}</Title>
        <Loader size="sm" mt="sm" />
      </Card>
    );
  }

  const busy = status.running;
  const percent = percentOf(status.done, status.total);
  const fileVersion = status.file?.version ?? '';
  const reason = status.error?.reason ? t(`maintain.firmware.reason.${status.error.reason}`, { defaultValue: status.error.reason }) : null;

  return (
    <Card withBorder padding="md" data-testid="maintain-firmware">
      <Stack gap="sm">
        <Title order={4}>{t('maintain.firmware.title')}</Title>
        <Text size="sm" c="dimmed">
          {t('maintain.firmware.text')}
        </Text>
        <Group gap="lg">
          <Text size="sm">
            {t('maintain.firmware.current')}: <b data-testid="firmware-current">{status.current}</b>
          </Text>
          <Text size="sm" c="dimmed" data-testid="firmware-slots">
            {t('maintain.firmware.slot', { running: status.slots.running.toUpperCase() })}
          </Text>
        </Group>
        {status.slots.trial && (
          <Alert color="blue" variant="light">
            {t('maintain.firmware.trial', { slot: status.slots.trial.slot.toUpperCase() })}
          </Alert>
        )}

        {busy && status.operation && (
          <Stack gap={6} data-testid="firmware-progress" data-operation={status.operation}>
            <Group gap="xs">
              <Loader size="xs" />
              <Text fw={500} aria-live="polite" data-testid="firmware-progress-text">
                {t(`maintain.firmware.progress.${status.operation}`, {
                  seconds: status.elapsedSeconds,
                  percent,
                  done: formatBytes(status.done),
                })}
              </Text>
            </Group>
            {status.total !== null && status.operation !== 'check' && <Progress value={percent} size="sm" />}
          </Stack>
        )}

        {!busy && status.error && (
          <Alert color="red" variant="light" data-testid="firmware-error">
            {status.error.msg === 'msg.firmwareFlow.corrupt' && reason
              ? t('maintain.firmware.corruptReason', { reason })
              : translateMessage(status.error.msg)}
          </Alert>
        )}

        {!busy && status.upgraded && !status.error && (
          <Alert color="green" variant="light" data-testid="firmware-upgraded">
            {t('maintain.firmware.upgraded', { version: status.upgraded.version })}
          </Alert>
        )}

        <Group gap="sm">
          <Button variant="light" disabled={!canAct || busy || !status.serverConfigured} onClick={() => void run(checkVersion)} data-testid="firmware-check">
            {t('maintain.firmware.check')}
          </Button>
          <Text size="sm" c="dimmed">
            {t('maintain.firmware.server')}: {status.serverConfigured ? '✓' : t('maintain.firmware.serverNone')}
          </Text>
        </Group>

        {!busy && status.operation === 'check' && status.latest && !status.latest.newer && !status.error && (
          <Text size="sm" data-testid="firmware-no-new">
            {t('maintain.firmware.noNew')}
          </Text>
        )}
        {status.latest?.newer && !(status.file && status.file.version === status.latest.version) && (
          <Group gap="sm" data-testid="firmware-available">
            <Text size="sm">{t('maintain.firmware.available', { version: status.latest.version, size: formatBytes(status.latest.size) })}</Text>
            <Button size="xs" disabled={!canAct || busy} onClick={() => void run(downloadFirmware)} data-testid="firmware-download">
              {t('maintain.firmware.download')}
            </Button>
          </Group>
        )}

        <Group gap="sm" align="flex-end">
          <FileInput
            label={t('maintain.firmware.file')}
            placeholder={t('maintain.firmware.filePlaceholder')}
            description={t('maintain.firmware.fileHelp', { size: formatBytes(status.maxBytes) })}
            value={file}
            onChange={setFile}
            disabled={!canAct || busy}
            clearable
            w={320}
            data-testid="firmware-file"
          />
          <Button variant="light" disabled={!canAct || busy || !file} onClick={() => void upload()} data-testid="firmware-upload">
            {t('maintain.firmware.upload')}
          </Button>
        </Group>

        {status.file && !status.file.verified && !busy && (
          <Group gap="sm" data-testid="firmware-kept">
            <Text size="sm">
              {t('maintain.firmware.kept', { version: fileVersion ? t('maintain.firmware.keptVersion', { version: fileVersion }) : '' })}
            </Text>
            <Button size="xs" variant="light" disabled={!canAct} onClick={() => void run(checkFile)} data-testid="firmware-filecheck">
              {t('maintain.firmware.fileCheck')}
            </Button>
          </Group>
        )}
        {status.file?.verified && !busy && (
          <Group gap="sm" data-testid="firmware-verified">
            <Text size="sm">{t('maintain.firmware.verified', { version: fileVersion })}</Text>
            <Button size="xs" color="orange" disabled={!canModify} onClick={() => setAsking(true)} data-testid="firmware-upgrade">
              {t('maintain.firmware.upgrade')}
            </Button>
          </Group>
        )}
      </Stack>

      <Modal
        opened={asking}
        onClose={() => setAsking(false)}
        title={t('maintain.firmware.upgradeTitle')}
        centered
        zIndex={400}
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        <Stack>
          <Text>
            {keepConfig
              ? t('maintain.firmware.upgradeText', { version: fileVersion })
              : t('maintain.firmware.upgradeTextReset', { version: fileVersion, address: FACTORY_ADDRESS_URL })}
          </Text>
          <Checkbox
            checked={keepConfig}
            onChange={(event) => setKeepConfig(event.currentTarget.checked)}
            label={t('maintain.firmware.keepConfig')}
            description={t('maintain.firmware.keepConfigHelp')}
            data-testid="firmware-keep-config"
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setAsking(false)} data-testid="firmware-upgrade-cancel">
              {t('common.cancel')}
            </Button>
            <Button color="orange" onClick={() => void upgrade()} data-testid="firmware-upgrade-ok">
              {t('maintain.firmware.upgrade')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Card>
  );
}
