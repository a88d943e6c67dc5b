import { useState } from 'react';
import { Button, Card, Group, Modal, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { FACTORY_ADDRESS_URL } from './maintain-model.js';

type Pending = 'reboot' | 'reset' | null;

interface Props {
  canReboot: boolean;
  canReset: boolean;
  busy: boolean;
  onReboot: () => Promise<void>;
  onReset: () => Promise<void>;
}

/** Reboot and factory reset, each behind a question that says what will happen. */
export function DeviceRestartSection({ canReboot, canReset, busy, onReboot, onReset }: Props) {
  const { t } = useTranslation();
  const [pending, setPending] = useState<Pending>(null);
  const [sending, setSending] = useState(false);

  async function go() {
    const what = pending;
    if (!what || sending) return;
    setSending(true);
    try {
      await (what === 'reboot' ? onReboot() : onReset());
    } finally {
      setSending(false);
      setPending(null);
    }
  }

  return (
    <Card withBorder padding="md" data-testid="maintain-device">
      <Stack gap="sm">
        <Title order={4}>{t('maintain.device.title')}</Title>
        <Text size="sm" c="dimmed">
          {t('maintain.device.text')}
        </Text>
        <Group gap="sm">
          <Button variant="light" disabled={!canReboot || busy} onClick={() => setPending('reboot')} data-testid="maintain-reboot">
            {t('maintain.device.reboot')}
          </Button>
          <Button color="red" variant="light" disabled={!canReset || busy} onClick={() => setPending('reset')} data-testid="maintain-reset">
            {t('maintain.device.reset')}
          </Button>
        </Group>
      </Stack>

      <Modal
        opened={pending !== null}
        onClose={() => !sending && setPending(null)}
        title={pending ? t(`maintain.device.${pending}Title`) : ''}
        centered
        zIndex={400}
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        <Stack>
          <Text>{pending === 'reset' ? t('maintain.device.resetText', { address: FACTORY_ADDRESS_URL }) : t('maintain.device.rebootText')}</Text>
          <Group justify="flex-end">
            <Button variant="default" disabled={sending} onClick={() => setPending(null)} data-testid="maintain-restart-cancel">
              {t('common.cancel')}
            </Button>
            <Button color={pending === 'reset' ? 'red' : 'orange'} loading={sending} onClick={() => void go()} data-testid="maintain-restart-ok">
              {pending ? t(`maintain.device.${pending}Ok`) : ''}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Card>
  );
}
