import { useEffect, useState } from 'react';
import { Button, Group, Radio, Stack, Switch, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatBytes } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';
import { translateFieldError } from '../../i18n/console-i18n.js';
import { useCurrentRoute, useMenuTitle } from '../../routes/current-route.js';
import { PageHeading } from '../../shell/page-heading.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { AUDIT_PATHS, type AuditDiskRow } from './audit-api.js';

interface Settings {
  enabled: boolean;
  urls: boolean;
  flows: boolean;
  disk: string;
}

/**
 * Behaviour audit settings (/security/behavioraudit/config): what is recorded and on which
 * disk, each disk with its size and the retention it gives; a disk of 500 MB or less cannot
 * be chosen (spec §5), and the daemon refuses it too.
 */
export default function AuditConfigPage() {
  const { t } = useTranslation();
  const title = useMenuTitle();
  const route = useCurrentRoute();
  const canWrite = route?.permission === 'modify';
  const [settings, setSettings] = useState<Settings | null>(null);
  const [disks, setDisks] = useState<AuditDiskRow[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});

  useEffect(() => {
    let live = true;
    void Promise.all([apiGet<Partial<Settings>>(AUDIT_PATHS.settings), apiGet<{ items: AuditDiskRow[] }>(AUDIT_PATHS.disks)])
      .then(([stored, list]) => {
        if (!live) return;
        setSettings({ enabled: stored.enabled ?? false, urls: stored.urls ?? true, flows: stored.flows ?? true, disk: stored.disk ?? '' });
        setDisks(list.items);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);

  async function save() {
    if (!settings) return;
    const reply = await apiPost(AUDIT_PATHS.settings, { ...settings }).catch(() => null);
    if (!reply) return;
    if (reply.success) {
      setErrors({});
      showSuccessNotice(t('behaviourAudit.config.saved'));
    } else setErrors(reply.errors ?? {});
  }

  const set = (patch: Partial<Settings>) => setSettings((current) => (current ? { ...current, ...patch } : current));

  return (
    <Stack gap="md" data-testid="audit-config-page">
      <PageHeading title={`${title} · ${t('behaviourAudit.tab.basic')}`} />
      {settings && (
        <Stack gap="sm" maw={720}>
          <Switch label={t('behaviourAudit.field.enabled')} checked={settings.enabled} disabled={!canWrite} onChange={(e) => set({ enabled: e.currentTarget.checked })} data-testid="audit-enabled" />
          <Switch
            label={t('behaviourAudit.field.urls')}
            description={t('behaviourAudit.help.urls')}
            checked={settings.urls}
            disabled={!canWrite}
            onChange={(e) => set({ urls: e.currentTarget.checked })}
          />
          <Switch
            label={t('behaviourAudit.field.flows')}
            description={t('behaviourAudit.help.flows')}
            checked={settings.flows}
            disabled={!canWrite}
            onChange={(e) => set({ flows: e.currentTarget.checked })}
          />
          <Radio.Group
            label={t('behaviourAudit.field.disk')}
            description={t('behaviourAudit.help.disk')}
            value={settings.disk}
            onChange={(disk) => set({ disk })}
            error={errors.disk ? translateFieldError(errors.disk) : undefined}
          >
            <Table mt="xs" data-testid="audit-disks">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('behaviourAudit.field.disk')}</Table.Th>
                  <Table.Th>{t('behaviourAudit.disk.size')}</Table.Th>
                  <Table.Th>{t('behaviourAudit.disk.free')}</Table.Th>
                  <Table.Th>{t('behaviourAudit.disk.retention')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {disks.map((disk) => (
                  <Table.Tr key={disk.path}>
                    <Table.Td>
                      <Radio value={disk.path} label={disk.path === '' ? t('behaviourAudit.disk.internal') : disk.path} disabled={!canWrite || disk.retentionDays === null} />
                    </Table.Td>
                    <Table.Td>{formatBytes(disk.total)}</Table.Td>
                    <Table.Td>{formatBytes(disk.free)}</Table.Td>
                    <Table.Td>
                      <Text size="sm" c={disk.retentionDays === null ? 'red' : undefined}>
                        {disk.retentionDays === null ? t('behaviourAudit.disk.tooSmall') : t('behaviourAudit.disk.days', { count: disk.retentionDays })}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Radio.Group>
          {canWrite && (
            <Group>
              <Button onClick={() => void save()} data-testid="audit-save">
                {t('behaviourAudit.config.save')}
              </Button>
            </Group>
          )}
        </Stack>
      )}
    </Stack>
  );
}
