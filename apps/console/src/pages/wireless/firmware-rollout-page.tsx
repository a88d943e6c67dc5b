import { useEffect, useState } from 'react';
import { Button, Checkbox, Group, MultiSelect, NumberInput, Select, Stack, TagsInput, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { DeviceList, FirmwareView } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';
import { PageHeading } from '../../shell/page-heading.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { useMenuTitle } from '../../routes/current-route.js';

const BACK = '/wirelessmanage/firmware';
/** Adopted APs the rollout form offers (the AP list pages the rest). */
const AP_CHOICES = 500;

/**
 * Start a staged upgrade (/wirelessmanage/firmware/edit): an image, the adopted APs of its
 * model, a canary count and the cumulative percentages of the waves after it.
 */
export default function FirmwareRolloutPage() {
  const { t } = useTranslation();
  const menuTitle = useMenuTitle();
  const navigate = useNavigate();
  const [view, setView] = useState<FirmwareView | null>(null);
  const [aps, setAps] = useState<DeviceList['items']>([]);
  const [image, setImage] = useState<string | null>(null);
  const [serials, setSerials] = useState<string[]>([]);
  const [canary, setCanary] = useState<number>(1);
  const [waves, setWaves] = useState<string[]>(['10', '50', '100']);
  const [soak, setSoak] = useState<number>(120);
  const [deadline, setDeadline] = useState<number>(600);
  const [all, setAll] = useState(false);

  useEffect(() => {
    apiGet<FirmwareView>('ac/firmware').then(setView, () => undefined);
    apiGet<DeviceList>('ac/aplist', { status: 'adopted', page_size: AP_CHOICES }).then((list) => setAps(list.items), () => undefined);
  }, []);

  const chosen = view?.images.find((i) => i.id === image);
  const fitting = aps.filter((ap) => !chosen || ap.model === chosen.model);
  const targets = all ? fitting.map((ap) => ap.serial) : serials;
  const percents = waves.map(Number).filter((n) => Number.isInteger(n) && n >= 1 && n <= 100);

  async function start() {
    const reply = await apiPost('ac/firmware', { action: 'rollout', id: image, serials: targets, canary, waves: percents, soak, deadline }).catch(() => null);
    if (reply?.success) {
      showSuccessNotice(t('wireless.firmware.started'));
      void navigate(BACK);
    }
  }

  return (
    <Stack gap="md" maw={720} data-testid="firmware-rollout-page">
      <PageHeading title={`${menuTitle} · ${t('wireless.firmware.rollout')}`} />
      <Select
        label={t('wireless.firmware.image')}
        data={(view?.images ?? []).map((i) => ({ value: i.id, label: `${i.model} · ${i.version}` }))}
        value={image}
        onChange={setImage}
        data-testid="rollout-image"
      />
      <Checkbox label={t('wireless.firmware.allOfModel', { count: fitting.length })} checked={all} onChange={(e) => setAll(e.currentTarget.checked)} data-testid="rollout-all" />
      {!all && (
        <MultiSelect
          label={t('wireless.firmware.targets')}
          data={fitting.map((ap) => ({ value: ap.serial, label: `${ap.name || ap.serial} (${ap.firmware || '-'})` }))}
          value={serials}
          onChange={setSerials}
          searchable
          data-testid="rollout-aps"
        />
      )}
      <NumberInput label={t('wireless.firmware.canary')} min={0} max={100} value={canary} onChange={(v) => setCanary(typeof v === 'number' ? v : 0)} data-testid="rollout-canary" />
      <TagsInput label={t('wireless.firmware.waves')} description={t('wireless.firmware.wavesHint')} value={waves} onChange={setWaves} data-testid="rollout-waves" />
      <NumberInput label={t('wireless.firmware.soak')} description={t('wireless.firmware.soakHint')} min={0} max={86400} value={soak} onChange={(v) => setSoak(typeof v === 'number' ? v : 0)} data-testid="rollout-soak" />
      <NumberInput label={t('wireless.firmware.deadline')} description={t('wireless.firmware.deadlineHint')} min={30} max={86400} value={deadline} onChange={(v) => setDeadline(typeof v === 'number' ? v : 30)} data-testid="rollout-deadline" />
      <Text size="sm" c="dimmed">
        {t('wireless.firmware.rolloutHint')}
      </Text>
      <Group>
        <Button variant="default" onClick={() => void navigate(BACK)}>
          {t('common.cancel')}
        </Button>
        <Button disabled={!image || targets.length === 0 || percents.length === 0} onClick={() => void start()} data-testid="rollout-start">
          {t('wireless.firmware.start')}
        </Button>
      </Group>
    </Stack>
  );
}
