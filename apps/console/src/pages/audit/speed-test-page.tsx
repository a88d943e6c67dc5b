import { useEffect, useState } from 'react';
import { Alert, Button, Group, NumberInput, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatBitRate } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';
import { translateFieldError } from '../../i18n/console-i18n.js';
import { useCurrentRoute, useMenuTitle } from '../../routes/current-route.js';
import { PageHeading } from '../../shell/page-heading.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { StatusTable } from '../network-status/net-status-parts.js';

/** The daemon's speed test routes (apps/daemon/src/domains/speedtest). */
const STATUS_PATH = 'security/speedtest';
const SETTINGS_PATH = 'sysconf/speedtest';
const RUNNING_REFRESH_MS = 1000;
const IDLE_REFRESH_MS = 15_000;

interface SpeedStatus {
  wans: Array<{ name: string; device: string }>;
  server: string;
  running: { wan: string; phase: 'download' | 'upload'; started: number } | null;
  results: Array<{ wan: string; server: string; port: number; at: number; download: number; upload: number }>;
  error: { msg: string; detail: string } | null;
}

interface ServerSettings {
  server: string;
  port: number;
  seconds: number;
}

/**
 * Speed test (/security/speedtest): the iperf3 server, a WAN to measure, the test's progress
 * and the last results (download and upload of each WAN).
 */
export default function SpeedTestPage() {
  const { t, i18n } = useTranslation();
  const title = useMenuTitle();
  const route = useCurrentRoute();
  const canAct = route?.permission === 'modify' || route?.permission === 'access';
  const [fast, setFast] = useState(false);
  const { data, refresh } = useStatusQuery<SpeedStatus>(STATUS_PATH, {}, fast ? RUNNING_REFRESH_MS : IDLE_REFRESH_MS);
  const [wan, setWan] = useState<string | null>(null);
  const [settings, setSettings] = useState<ServerSettings | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});

  useEffect(() => {
    void apiGet<Partial<ServerSettings>>(SETTINGS_PATH)
      .then((stored) => setSettings({ server: stored.server ?? '', port: stored.port ?? 5201, seconds: stored.seconds ?? 8 }))
      .catch(() => undefined);
  }, []);
  useEffect(() => setFast(data?.running !== null && data?.running !== undefined), [data?.running]);
  useEffect(() => {
    if (wan === null && data?.wans[0]) setWan(data.wans[0].name);
  }, [data, wan]);

  async function saveServer() {
    if (!settings) return;
    const reply = await apiPost(SETTINGS_PATH, { ...settings }).catch(() => null);
    if (!reply) return;
    if (reply.success) {
      setErrors({});
      showSuccessNotice(t('speedTest.run.saved'));
      refresh();
    } else setErrors(reply.errors ?? {});
  }

  async function start() {
    if (!wan) return;
    const reply = await apiPost(STATUS_PATH, { action: 'start', wan }).catch(() => null);
    if (reply?.success) {
      setFast(true);
      refresh();
    }
  }

  const fieldError = (name: string) => (errors[name] ? translateFieldError(errors[name]!) : undefined);

  return (
    <Stack gap="md" data-testid="speedtest-page">
      <PageHeading title={title} />
      {settings && (
        <Stack gap="xs" maw={720}>
          <Title order={5}>{t('speedTest.run.settings')}</Title>
          <Group align="flex-end" wrap="wrap">
            <TextInput
              label={t('speedTest.field.server')}
              description={t('speedTest.help.server')}
              value={settings.server}
              maxLength={253}
              disabled={route?.permission !== 'modify'}
              error={fieldError('server')}
              onChange={(e) => setSettings({ ...settings, server: e.currentTarget.value })}
              data-testid="speedtest-server"
            />
            <NumberInput label={t('speedTest.field.port')} value={settings.port} min={1} max={65535} w={110} disabled={route?.permission !== 'modify'} error={fieldError('port')} onChange={(v) => setSettings({ ...settings, port: Number(v) })} data-testid="speedtest-port" />
            <NumberInput label={t('speedTest.field.seconds')} value={settings.seconds} min={3} max={30} w={150} disabled={route?.permission !== 'modify'} error={fieldError('seconds')} onChange={(v) => setSettings({ ...settings, seconds: Number(v) })} />
            {route?.permission === 'modify' && (
              <Button variant="default" onClick={() => void saveServer()} data-testid="speedtest-save">
                {t('speedTest.run.save')}
              </Button>
            )}
          </Group>
        </Stack>
      )}
      {data && (
        <Stack gap="sm">
          {data.wans.length === 0 ? (
            <Text c="dimmed">{t('speedTest.run.noWans')}</Text>
          ) : (
            <Group align="flex-end">
              <Select label={t('speedTest.run.wan')} data={data.wans.map((w) => ({ value: w.name, label: w.name }))} value={wan} onChange={setWan} allowDeselect={false} w={180} data-testid="speedtest-wan" />
              {canAct && (
                <Button onClick={() => void start()} loading={data.running !== null} disabled={data.server === ''} data-testid="speedtest-start">
                  {t('speedTest.run.start')}
                </Button>
              )}
            </Group>
          )}
          {data.server === '' && <Text c="dimmed">{t('speedTest.msg.noServer')}</Text>}
          {data.running && (
            <Alert variant="light" data-testid="speedtest-running">
              {t('speedTest.run.running', { wan: data.running.wan, phase: t(`speedTest.run.${data.running.phase}`) })}
            </Alert>
          )}
          {data.error && (
            <Alert color="red" variant="light" data-testid="speedtest-error">
              {t(data.error.msg)}
              {data.error.detail && <Text size="sm">{data.error.detail}</Text>}
            </Alert>
          )}
          <Title order={5}>{t('speedTest.run.results')}</Title>
          {data.results.length === 0 ? (
            <Text c="dimmed">{t('speedTest.run.none')}</Text>
          ) : (
            <StatusTable
              testId="speedtest-results"
              head={[t('speedTest.run.time'), t('speedTest.run.wan'), t('speedTest.run.server'), t('speedTest.run.download'), t('speedTest.run.upload')]}
              rows={data.results.map((r) => ({
                key: `${r.at}-${r.wan}`,
                cells: [instantText(r.at, i18n.language), r.wan, `${r.server}:${r.port}`, formatBitRate(r.download), formatBitRate(r.upload)],
              }))}
            />
          )}
        </Stack>
      )}
    </Stack>
  );
}
