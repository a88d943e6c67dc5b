import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Alert, Button, Group, NumberInput, Paper, Select, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PLAN_REF, TIME_UNITS, type VoucherBatch, type VoucherBatchCreated } from '@portico/schema';
import { showSuccessNotice } from '../../shell/notice.js';
import { translateFieldError } from '../../i18n/console-i18n.js';
import { createVoucherBatch, deleteVoucherBatches, fetchVoucherBatches } from './voucher-api.js';
import { VoucherSheet } from './voucher-sheet.js';
import { refOptions, useRefChoices } from '../entity/entity-ref-choices.js';
import { MenuPageHeading } from '../../shell/page-heading.js';

const PLAN_CHOICES = { plan: PLAN_REF };

interface BatchForm {
  name: string;
  codelength: number | string;
  amount: number | string;
  validity: number | string;
  unit: string;
  usernum: number | string;
  plan: string;
}

const INITIAL: BatchForm = { name: '', codelength: 8, amount: 10, validity: 1, unit: 'hours', usernum: 1, plan: '' };

/** Numbers as typed; an empty box is left out so the daemon reports it as required. */
function payload(form: BatchForm): Record<string, unknown> {
  const out: Record<string, unknown> = { name: form.name, unit: form.unit, plan: form.plan };
  for (const key of ['codelength', 'amount', 'validity', 'usernum'] as const) {
    if (form[key] !== '') out[key] = Number(form[key]);
  }
  return out;
}

/**
 * Voucher batches (/hotspot/voucherbatch): generate a batch (code length, amount, validity
 * with its unit, simultaneous users, plan), then print its sheet; the list shows each batch
 * with its unused / in use / expired counts.
 */
export default function VoucherBatchPage() {
  const { t } = useTranslation();
  const [form, setForm] = useState<BatchForm>(INITIAL);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [batches, setBatches] = useState<VoucherBatch[]>([]);
  const [created, setCreated] = useState<VoucherBatchCreated | null>(null);
  const [saving, setSaving] = useState(false);
  const plans = refOptions(useRefChoices(PLAN_CHOICES).plan ?? [], form.plan);

  const reload = useCallback(() => {
    fetchVoucherBatches()
      .then((page) => setBatches(page.items))
      .catch(() => undefined); // the API client has reported it
  }, []);
  useEffect(reload, [reload]);

  const set = (key: keyof BatchForm) => (value: string | number | null) => {
    setForm((prev) => ({ ...prev, [key]: value ?? '' }));
    setErrors((prev) => {
      const { [key]: _gone, ...rest } = prev;
      return rest;
    });
  };

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (saving) return;
    setSaving(true);
    try {
      const reply = await createVoucherBatch(payload(form));
      if (reply.success && reply.data) {
        setCreated(reply.data);
        reload();
      } else if (!reply.success && reply.errors) setErrors(reply.errors);
    } catch {
      // Reported by the API client.
    } finally {
      setSaving(false);
    }
  }

  async function remove(id: string) {
    const reply = await deleteVoucherBatches([id]).catch(() => null);
    if (reply?.success) {
      showSuccessNotice(t('entity.deleted'));
      reload();
    }
  }

  const error = (key: string) => (errors[key] ? translateFieldError(errors[key]!) : undefined);

  if (created) return <VoucherSheet created={created} onClose={() => setCreated(null)} />;

  return (
    <Stack>
      <MenuPageHeading />
      <Paper withBorder p="lg" radius="md">
        <form noValidate onSubmit={(event) => void submit(event)} data-testid="voucher-batch-form">
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }}>
              <TextInput label={t('hotspot.voucher.name')} value={form.name} onChange={(e) => set('name')(e.currentTarget.value)} error={error('name')} data-testid="voucher-name" />
              <NumberInput label={t('hotspot.voucher.codelength')} value={form.codelength} onChange={set('codelength')} min={6} max={16} allowDecimal={false} error={error('codelength')} data-testid="voucher-codelength" />
              <NumberInput label={t('hotspot.voucher.amount')} value={form.amount} onChange={set('amount')} min={1} max={1000} allowDecimal={false} error={error('amount')} data-testid="voucher-amount" />
              <NumberInput label={t('hotspot.voucher.validity')} value={form.validity} onChange={set('validity')} min={1} allowDecimal={false} error={error('validity')} data-testid="voucher-validity" />
              <Select
                label={t('hotspot.voucher.unit')}
                value={form.unit}
                onChange={set('unit')}
                allowDeselect={false}
                data={TIME_UNITS.map((unit) => ({ value: unit, label: t(`hotspotPlan.option.effectunit.${unit}`) }))}
                error={error('unit')}
                data-testid="voucher-unit"
              />
              <NumberInput label={t('hotspot.voucher.usernum')} value={form.usernum} onChange={set('usernum')} min={0} max={999} allowDecimal={false} error={error('usernum')} data-testid="voucher-usernum" />
              <Select
                label={t('hotspot.voucher.plan')}
                value={form.plan === '' ? null : form.plan}
                onChange={(value) => set('plan')(value ?? '')}
                data={plans.map((o) => ({ value: o.key, label: o.label ?? o.key }))}
                placeholder={t('entity.refNone')}
                nothingFoundMessage={t('entity.refEmpty')}
                clearable
                error={error('plan')}
                data-testid="voucher-plan"
              />
            </SimpleGrid>
            {errors._ && <Alert color="red">{translateFieldError(errors._)}</Alert>}
            <Group justify="flex-end">
              <Button type="submit" loading={saving} data-testid="voucher-create">
                {t('hotspot.voucher.create')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      <Table striped withTableBorder data-testid="voucher-batches">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('hotspot.voucher.name')}</Table.Th>
            <Table.Th>{t('hotspot.voucher.created')}</Table.Th>
            <Table.Th>{t('hotspot.voucher.amount')}</Table.Th>
            <Table.Th>{t('hotspot.voucher.validity')}</Table.Th>
            <Table.Th>{t('hotspot.voucher.plan')}</Table.Th>
            <Table.Th>{t('hotspot.voucher.counts')}</Table.Th>
            <Table.Th>{t('entity.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {batches.length === 0 && (
            <Table.Tr>
              <Table.Td colSpan={7}>
                <Text c="dimmed">{t('hotspot.voucher.empty')}</Text>
              </Table.Td>
            </Table.Tr>
          )}
          {batches.map((batch) => (
            <Table.Tr key={batch.id} data-testid="voucher-batch-row">
              <Table.Td>{batch.name}</Table.Td>
              <Table.Td>{new Date(batch.created_at).toLocaleString()}</Table.Td>
              <Table.Td>{batch.amount}</Table.Td>
              <Table.Td>{`${batch.validity} ${t(`hotspotPlan.option.effectunit.${batch.unit}`)}`}</Table.Td>
              <Table.Td>{batch.plan}</Table.Td>
              <Table.Td>{`${batch.unused} / ${batch.inuse} / ${batch.expired}`}</Table.Td>
              <Table.Td>
                <Button size="xs" color="red" variant="light" onClick={() => void remove(batch.id)}>
                  {t('hotspot.voucher.delete')}
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text fz="sm" c="dimmed">
        {t('hotspot.voucher.noCodes')}
      </Text>
    </Stack>
  );
}
