import { useCallback, useEffect, useRef, useState } from 'react';
import { Alert, Badge, Button, Card, FileInput, Group, Loader, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useCurrentRoute } from '../../routes/current-route.js';
import { MenuPageHeading } from '../../shell/page-heading.js';
import { showErrorNotice, showSuccessNotice } from '../../shell/notice.js';
import { translateMessage } from '../../i18n/console-i18n.js';
import { activateLicense, fetchLicense, importLicense, type LicenseState, type LicenseView } from './license-api.js';

const POLL_MS = 1000;
/** A licence file is a few hundred bytes; anything far bigger is not one. */
const FILE_LIMIT = 16 * 1024;
const CODE = /^[A-Za-z0-9-]{8,64}$/;

const STATE_COLOR: Record<LicenseState, string> = {
  unlicensed: 'gray',
  activating: 'blue',
  activationFailed: 'red',
  activationSuccess: 'green',
  licensed: 'green',
  locked: 'red',
};

/**
 * System status → Licence (spec §4): the licence state, the device's identity, activation with
 * a code (polled while the licence server answers, with its counter) and the offline import of
 * a licence file; a locked device shows the piracy warning.
 */
export default function LicensePage() {
  const { t, i18n } = useTranslation();
  const route = useCurrentRoute();
  const canModify = route?.permission === 'modify';
  const [view, setView] = useState<LicenseView | null>(null);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const wasRunning = useRef(false);

  const take = useCallback(
    (next: LicenseView) => {
      if (wasRunning.current && !next.attempt?.running && next.state === 'activationSuccess') showSuccessNotice(t('license.success'));
      wasRunning.current = next.attempt?.running === true;
      setView(next);
    },
    [t],
  );

  const running = view?.attempt?.running === true;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = () =>
      fetchLicense()
        .then((next) => {
          if (stopped) return;
          take(next);
          if (next.attempt?.running) timer = setTimeout(() => void ask(), POLL_MS);
        })
        .catch(() => {
          // Reported by the API client.
        });
    if (view === null || running) void ask();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [view === null, running, take]); // eslint-disable-line react-hooks/exhaustive-deps

  async function activate() {
    const problem = CODE.test(code) ? null : t('license.codeHelp');
    setCodeError(problem);
    if (problem) return;
    const reply = await activateLicense(code);
    if (reply.success && reply.data) take(reply.data);
  }

  async function importFile() {
    if (!file) return;
    if (file.size > FILE_LIMIT) {
      showErrorNotice(t('msg.license.refusedFormat'));
      return;
    }
    const text = await file.text();
    const reply = await importLicense(text);
    if (reply.success && reply.data) {
      setFile(null);
      take(reply.data);
      showSuccessNotice(t('license.imported'));
    }
  }

  if (!view) {
    return (
      <Stack gap="lg" data-testid="license-page">
        <MenuPageHeading />
        <Loader size="sm" />
      </Stack>
    );
  }

  const date = (ms: number) => new Date(ms).toLocaleDateString(i18n.language);
  const error = view.attempt?.error;

  return (
    <Stack gap="lg" data-testid="license-page">
      <MenuPageHeading />
      {view.locked && (
        <Alert color="red" variant="filled" data-testid="license-piracy">
          {t('license.piracy')}
        </Alert>
      )}
      <Card withBorder padding="md">
        <Stack gap="sm">
          <Group gap="sm">
            <Title order={4}>{t('license.title')}</Title>
            <Badge color={STATE_COLOR[view.state]} variant="light" tt="none" data-testid="license-state" data-state={view.state}>
              {t(`license.state.${view.state}`)}
            </Badge>
            <Badge color={view.isRegister ? 'green' : 'gray'} variant="outline" tt="none" data-testid="license-activated">
              {t(view.isRegister ? 'license.activated' : 'license.unactivated')}
            </Badge>
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
            <Text size="sm">
              {t('license.sn')}: <b data-testid="license-sn">{view.sn}</b>
            </Text>
            <Text size="sm">
              {t('license.mac')}: {view.mac}
            </Text>
            <Text size="sm">
              {t('license.platform')}: {t(view.is_x86 ? 'license.x86' : 'license.other')}
            </Text>
            {view.license && (
              <>
                <Text size="sm" data-testid="license-id">
                  {t('license.licenseId')}: {view.license.id} · {t('license.edition')}: {view.license.edition}
                </Text>
                <Text size="sm">
                  {t('license.issued')}: {date(view.license.issued)}
                </Text>
                <Text size="sm">
                  {t('license.expires')}: {view.license.expires === null ? t('license.never') : date(view.license.expires)}
                </Text>
              </>
            )}
          </SimpleGrid>
          {view.fileProblem && !view.locked && (
            <Alert color="orange" variant="light">
              {t('license.fileProblem', { reason: t(`license.reason.${view.fileProblem}`, { defaultValue: view.fileProblem }) })}
            </Alert>
          )}
          {running && (
            <Group gap="xs" data-testid="license-progress">
              <Loader size="xs" />
              <Text fw={500} aria-live="polite" data-testid="license-progress-text">
                {t('license.activating', { seconds: view.attempt?.elapsedSeconds ?? 0 })}
              </Text>
            </Group>
          )}
          {!running && error && (
            <Alert color="red" variant="light" data-testid="license-error">
              {translateMessage(error.msg)}
            </Alert>
          )}
        </Stack>
      </Card>

      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder padding="md">
          <Stack gap="sm">
            <Title order={5}>{t('license.activateTitle')}</Title>
            {!view.serverConfigured && (
              <Text size="sm" c="dimmed">
                {t('license.noServer')}
              </Text>
            )}
            <TextInput
              label={t('license.code')}
              description={t('license.codeHelp')}
              value={code}
              error={codeError}
              maxLength={64}
              onChange={(event) => setCode(event.currentTarget.value.trim())}
              disabled={!canModify || running || !view.serverConfigured}
              data-testid="license-code"
            />
            <Group>
              <Button disabled={!canModify || running || !view.serverConfigured || code === ''} onClick={() => void activate()} data-testid="license-activate">
                {t('license.activate')}
              </Button>
            </Group>
          </Stack>
        </Card>
        <Card withBorder padding="md">
          <Stack gap="sm">
            <Title order={5}>{t('license.importTitle')}</Title>
            <Text size="sm" c="dimmed">
              {t('license.importHelp')}
            </Text>
            <FileInput
              label={t('license.file')}
              placeholder={t('license.filePlaceholder')}
              value={file}
              onChange={setFile}
              clearable
              disabled={!canModify || running}
              data-testid="license-file"
            />
            <Group>
              <Button variant="light" disabled={!canModify || running || !file} onClick={() => void importFile()} data-testid="license-import">
                {t('license.import')}
              </Button>
            </Group>
          </Stack>
        </Card>
      </SimpleGrid>
    </Stack>
  );
}
