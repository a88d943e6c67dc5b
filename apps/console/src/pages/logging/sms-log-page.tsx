import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { apiGet, apiPost } from '../../api/api-client.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { useCurrentRoute, useMenuTitle } from '../../routes/current-route.js';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { StatusFrame, StatusTable } from '../network-status/net-status-parts.js';

/** The daemon's SMS log route (hotspot/sms/sms-routes.ts). */
export const SMS_LOG_PATH = 'hotspot/smslog';
const REFRESH_MS = 30_000;

export interface SmsLogEntry {
  time: number;
  platform: string;
  /** Masked by the daemon: only its ends are shown. */
  phone: string;
  kind: string;
  outcome: string;
}

/**
 * The SMS log (/logging/smslogs): every message the gateway sent or tried to send, newest
 * first, with the platform, the masked number, the kind of message and how it went. The
 * daemon keeps no text, so none can be shown.
 */
export default function SmsLogPage() {
  const { t, i18n } = useTranslation();
  const title = useMenuTitle();
  const route = useCurrentRoute();
  const { data, failed, refresh } = useStatusQuery<{ items: SmsLogEntry[]; total: number }>(SMS_LOG_PATH, {}, REFRESH_MS);
  const canClean = route?.permission === 'modify';

  async function download() {
    const file = await apiGet<{ name: string; content: string }>(SMS_LOG_PATH, { action: 'download' }).catch(() => null);
    if (!file) return;
    const url = URL.createObjectURL(new Blob([file.content], { type: 'text/plain' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = file.name;
    link.click();
    URL.revokeObjectURL(url);
  }

  async function clean() {
    if (!window.confirm(t('smsLog.confirmClean'))) return;
    const reply = await apiPost(SMS_LOG_PATH, { action: 'clean' }).catch(() => null);
    if (reply?.success) {
      showSuccessNotice(t('msg.sms.log.cleaned'));
      refresh();
    }
  }

  return (
    <StatusFrame testId="sms-log" title={title} failed={failed} loading={!data}>
      {data && (
        <Stack gap="sm">
          <Group>
            <Button variant="light" onClick={refresh} data-testid="sms-log-refresh">
              {t('smsLog.refresh')}
            </Button>
            <Button variant="default" onClick={() => void download()} disabled={data.items.length === 0} data-testid="sms-log-download">
              {t('smsLog.download')}
            </Button>
            {canClean && (
              <Button variant="default" color="red" onClick={() => void clean()} disabled={data.items.length === 0} data-testid="sms-log-clean">
                {t('smsLog.clean')}
              </Button>
            )}
          </Group>
          {data.items.length === 0 ? (
            <Text c="dimmed" data-testid="sms-log-empty">
              {t('smsLog.empty')}
            </Text>
          ) : (
            <StatusTable
              testId="sms-log-table"
              head={[t('smsLog.field.time'), t('smsLog.field.platform'), t('smsLog.field.phone'), t('smsLog.field.kind'), t('smsLog.field.outcome')]}
              rows={data.items.map((entry, index) => ({
                key: `${entry.time}-${index}`,
                cells: [
                  instantText(entry.time, i18n.language),
                  t(`hotspotSms.option.platform.${entry.platform}`, { defaultValue: entry.platform }),
                  entry.phone,
                  t(`smsLog.kind.${entry.kind}`, { defaultValue: entry.kind }),
                  <Badge variant="light" color={entry.outcome === 'sms.send.ok' ? 'green' : 'red'}>
                    {t(`msg.${entry.outcome}`, { defaultValue: entry.outcome })}
                  </Badge>,
                ],
              }))}
            />
          )}
        </Stack>
      )}
    </StatusFrame>
  );
}
