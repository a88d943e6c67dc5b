import { useState } from 'react';
import { Badge, Button, Group, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { formatBytes, type FirmwareView } from '@portico/schema';
import { apiPost } from '../../api/api-client.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { StatusFrame, StatusTable } from '../network-status/net-status-parts.js';
import { useMenuTitle } from '../../routes/current-route.js';

const REFRESH_MS = 5_000;

/**
 * AP firmware (/wirelessmanage/firmware): the signing keys trusted for images, the signed
 * images per model, and the rollout in waves with each AP's state. Uploading an image is
 * /firmware/add, starting a rollout /firmware/edit.
 */
export default function FirmwarePage() {
  const { t, i18n } = useTranslation();
  const menuTitle = useMenuTitle();
  const navigate = useNavigate();
  const { data, failed, refresh } = useStatusQuery<FirmwareView>('ac/firmware', {}, REFRESH_MS);
  const [keyName, setKeyName] = useState('');
  const [keyPem, setKeyPem] = useState('');

  async function act(body: Record<string, unknown>, notice: string) {
    const reply = await apiPost('ac/firmware', body).catch(() => null);
    if (reply?.success) {
      showSuccessNotice(t(notice));
      refresh();
    }
    return reply?.success ?? false;
  }

  return (
    <StatusFrame testId="firmware-page" title={menuTitle} failed={failed} loading={!data}>
      {data && (
        <Stack gap="lg">
          <Group>
            <Button onClick={() => void navigate('/wirelessmanage/firmware/add')} data-testid="firmware-upload-link">
              {t('wireless.firmware.upload')}
            </Button>
            <Button variant="light" onClick={() => void navigate('/wirelessmanage/firmware/edit')} disabled={data.images.length === 0} data-testid="firmware-rollout-link">
              {t('wireless.firmware.rollout')}
            </Button>
          </Group>
          {data.rollout && (
            <Stack gap="xs" data-testid="firmware-rollout">
              <Group gap="sm">
                <Title order={5}>{t('wireless.firmware.rolloutTitle', { model: data.rollout.model, version: data.rollout.version })}</Title>
                <Badge>{t(`wireless.firmware.state.${data.rollout.state}`)}</Badge>
                {['pending', 'running'].includes(data.rollout.state) && (
                  <Button size="compact-xs" color="red" variant="light" onClick={() => void act({ action: 'cancel' }, 'wireless.firmware.cancelled')}>
                    {t('common.cancel')}
                  </Button>
                )}
              </Group>
              <Text size="sm" c="dimmed">
                {t('wireless.firmware.progress', { wave: Math.min(data.rollout.wave + 1, data.rollout.waves), waves: data.rollout.waves, failures: data.rollout.failures })}
                {data.rollout.haltReason ? ` · ${t(`wireless.firmware.halt.${data.rollout.haltReason}`)}` : ''}
              </Text>
              <StatusTable
                testId="firmware-rollout-table"
                head={[t('wireless.field.name'), t('wireless.field.serial'), t('wireless.firmware.wave'), t('wireless.field.firmware'), t('wireless.field.state')]}
                rows={data.rollout.aps.map((ap) => ({
                  key: ap.serial,
                  cells: [<span>{ap.name || '-'}</span>, ap.serial, ap.wave === null ? '-' : ap.wave + 1, <span>{ap.version}</span>, t(`wireless.firmware.ap.${ap.status}`)],
                }))}
              />
            </Stack>
          )}
          <Stack gap="xs">
            <Title order={5}>{t('wireless.firmware.images')}</Title>
            <StatusTable
              testId="firmware-images"
              head={[t('wireless.field.model'), t('wireless.firmware.version'), t('wireless.firmware.size'), t('wireless.firmware.sha256'), t('wireless.firmware.uploaded'), t('wireless.field.actions')]}
              rows={data.images.map((image) => ({
                key: image.id,
                cells: [
                  <span>{image.model}</span>,
                  <span>{image.version}</span>,
                  formatBytes(image.size),
                  <code>{image.sha256.slice(0, 16)}…</code>,
                  instantText(image.uploadedAt, i18n.language),
                  <Button
                    size="compact-xs"
                    color="red"
                    variant="subtle"
                    onClick={() => window.confirm(t('wireless.firmware.confirmDelete')) && void act({ action: 'delete', id: image.id }, 'wireless.firmware.deleted')}
                  >
                    {t('entity.delete')}
                  </Button>,
                ],
              }))}
            />
          </Stack>
          <Stack gap="xs">
            <Title order={5}>{t('wireless.firmware.keys')}</Title>
            <Text size="sm" c="dimmed">
              {t('wireless.firmware.keysHint')}
            </Text>
            <StatusTable
              testId="firmware-keys"
              head={[t('wireless.field.name'), t('wireless.firmware.fingerprint'), t('wireless.firmware.added'), t('wireless.field.actions')]}
              rows={data.keys.map((key) => ({
                key: key.id,
                cells: [
                  <span>{key.name}</span>,
                  <code>{key.fingerprint.slice(0, 32)}…</code>,
                  instantText(key.addedAt, i18n.language),
                  <Button size="compact-xs" color="red" variant="subtle" onClick={() => void act({ action: 'delkey', id: key.id }, 'wireless.firmware.deleted')}>
                    {t('entity.delete')}
                  </Button>,
                ],
              }))}
            />
            <Group align="flex-end" wrap="nowrap">
              <TextInput label={t('wireless.firmware.keyName')} value={keyName} maxLength={64} onChange={(e) => setKeyName(e.currentTarget.value)} data-testid="firmware-key-name" />
              <Textarea
                label={t('wireless.firmware.keyPem')}
                value={keyPem}
                autosize
                minRows={2}
                style={{ flex: 1 }}
                onChange={(e) => setKeyPem(e.currentTarget.value)}
                data-testid="firmware-key-pem"
              />
              <Button
                disabled={!keyName.trim() || !keyPem.trim()}
                onClick={async () => {
                  if (await act({ action: 'addkey', name: keyName.trim(), pem: keyPem }, 'wireless.firmware.keyAdded')) {
                    setKeyName('');
                    setKeyPem('');
                  }
                }}
                data-testid="firmware-key-add"
              >
                {t('wireless.firmware.addKey')}
              </Button>
            </Group>
          </Stack>
        </Stack>
      )}
    </StatusFrame>
  );
}
