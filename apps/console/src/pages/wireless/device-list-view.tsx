import { useEffect, useState } from 'react';
import { Badge, Button, Checkbox, Group, Modal, SegmentedControl, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { DEVICE_HEALTH_NORMAL_MIN, DEVICE_STATUSES, deviceSerialField, type DeviceCommand, type DeviceKind, type DeviceList, type DeviceRow, type DeviceStatus } from '@portico/schema';
import { showErrorNotice, showSuccessNotice } from '../../shell/notice.js';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { Pager, StatusFrame, StatusSearch, StatusTable } from '../network-status/net-status-parts.js';
import { useMenuTitle } from '../../routes/current-route.js';
import { bindingChoices, deviceCommand, DEVICE_LIST_PATH, issueDeviceCertificate, type BindingChoice, type DeviceCertificateBundle } from './wireless-api.js';

const PAGE_SIZE = 50;
const REFRESH_MS = 10_000;
const STATUS_COLOR: Record<DeviceStatus, string> = { pending: 'yellow', adopted: 'teal', revoked: 'red' };
/** Commands on the selected rows, in button order; adopt and bind ask for a group first. */
const BULK_COMMANDS: readonly DeviceCommand[] = ['adopt', 'bind', 'push', 'reboot', 'blink', 'scan', 'revoke', 'forget'];
const DANGEROUS: ReadonlySet<DeviceCommand> = new Set(['reboot', 'revoke', 'forget']);

/**
 * The managed devices of one kind (/wirelessmanage/aplist, /cpemanage/cpelist): paged on the
 * server, filtered by status and text, with the administrator's commands on the selected
 * rows. Names, models and firmware strings come from devices and are rendered as text.
 */
export function DeviceListView({ kind }: { kind: DeviceKind }) {
  const { t, i18n } = useTranslation();
  const menuTitle = useMenuTitle();
  const [status, setStatus] = useState<'all' | DeviceStatus>('all');
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [binding, setBinding] = useState<DeviceCommand | null>(null);
  const [renaming, setRenaming] = useState<DeviceRow | null>(null);
  const [certifying, setCertifying] = useState<string | null>(null);
  const { data, failed, refresh } = useStatusQuery<DeviceList>(DEVICE_LIST_PATH[kind], { status, q, page, page_size: PAGE_SIZE }, REFRESH_MS);

  async function run(action: DeviceCommand, serials: readonly string[], extra: { group?: string; name?: string } = {}) {
    const reply = await deviceCommand(kind, action, serials, extra).catch(() => null);
    if (!reply?.success || !reply.data) return;
    const { done, refused } = reply.data;
    if (done.length) showSuccessNotice(t('wireless.command.done', { count: done.length, action: t(`wireless.command.${action}`) }));
    for (const { serial, reason } of refused) showErrorNotice(t('wireless.command.refused', { serial, reason: t(`wireless.refusal.${reason}`) }));
    setSelected(new Set());
    refresh();
  }

  function start(action: DeviceCommand) {
    const serials = [...selected];
    if (action === 'adopt' || action === 'bind') return setBinding(action);
    if (DANGEROUS.has(action) && !window.confirm(t(`wireless.confirm.${action}`, { count: serials.length }))) return;
    void run(action, serials);
  }

  const toggle = (serial: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(serial)) next.delete(serial);
      else next.add(serial);
      return next;
    });

  const filters = (
    <>
      <SegmentedControl
        data-testid="device-status-filter"
        value={status}
        onChange={(value) => {
          setStatus(value as typeof status);
          setPage(1);
        }}
        data={[
          { value: 'all', label: t('wireless.status.all') },
          ...DEVICE_STATUSES.map((s) => ({ value: s, label: data ? `${t(`wireless.status.${s}`)} (${data.counts[s]})` : t(`wireless.status.${s}`) })),
        ]}
      />
      <StatusSearch
        value={q}
        onChange={(value) => {
          setQ(value);
          setPage(1);
        }}
      />
    </>
  );

  return (
    <StatusFrame testId={`${kind}-list-page`} title={menuTitle} failed={failed} loading={!data} filters={filters}>
      {data && (
        <Stack gap="sm">
          <Group gap="xs" data-testid="device-commands">
            {BULK_COMMANDS.map((action) => (
              <Button
                key={action}
                size="xs"
                variant="light"
                color={DANGEROUS.has(action) ? 'red' : undefined}
                disabled={selected.size === 0}
                onClick={() => start(action)}
                data-testid={`device-${action}`}
              >
                {t(`wireless.command.${action}`)}
              </Button>
            ))}
            <Button size="xs" variant="light" color="gray" onClick={() => setCertifying(selected.size === 1 ? [...selected][0]! : '')} data-testid="device-certificate">
              {t('wireless.certificate.open')}
            </Button>
          </Group>
          <StatusTable
            testId="device-table"
            head={[
              '',
              t('wireless.field.name'),
              t('wireless.field.serial'),
              t('wireless.field.status'),
              t('wireless.field.state'),
              t(kind === 'ap' ? 'wireless.field.group' : 'wireless.field.profile'),
              t('wireless.field.model'),
              t('wireless.field.firmware'),
              t('wireless.field.address'),
              t('wireless.field.channels'),
              t('wireless.field.stations'),
              t('wireless.field.config'),
              t('wireless.field.lastSeen'),
              t('wireless.field.actions'),
            ]}
            rows={data.items.map((row) => ({
              key: row.serial,
              cells: [
                <Checkbox
                  aria-label={t('wireless.selectDevice', { serial: row.serial })}
                  checked={selected.has(row.serial)}
                  onChange={() => toggle(row.serial)}
                  data-testid="device-select"
                />,
                <span data-testid="device-name">{row.name || '-'}</span>,
                row.serial,
                <Badge color={STATUS_COLOR[row.status]} variant="light">
                  {t(`wireless.status.${row.status}`)}
                </Badge>,
                <Badge color={!row.online ? 'gray' : row.sanity !== null && row.sanity < DEVICE_HEALTH_NORMAL_MIN ? 'orange' : 'teal'} variant="dot">
                  {!row.online
                    ? t('wireless.state.offline')
                    : row.sanity !== null && row.sanity < DEVICE_HEALTH_NORMAL_MIN
                      ? t('wireless.state.abnormal', { sanity: row.sanity })
                      : t('wireless.state.normal')}
                </Badge>,
                <span data-testid="device-group">{row.groupName ?? '-'}</span>,
                <span>{row.model || '-'}</span>,
                <span>{row.firmware || '-'}</span>,
                row.address || '-',
                row.radios.map((r) => t('wireless.radio', { band: r.band, channel: r.channel })).join(' / ') || '-',
                row.stations,
                <span data-testid="device-config" title={row.configReasons.length ? t('wireless.config.reasons', { reasons: row.configReasons.map((r) => t(r, { defaultValue: r })).join('; ') }) : undefined}>
                  {row.configPending ? t('wireless.config.pending') : row.configOutcome ? t(`wireless.config.${row.configOutcome}`) : '-'}
                  {!row.configPending && row.configReasons.length > 0 && (
                    <Text size="xs" c="dimmed" data-testid="device-config-reasons">
                      {row.configReasons.map((r) => t(r, { defaultValue: r })).join('; ')}
                    </Text>
                  )}
                </span>,
                instantText(row.lastSeen, i18n.language) || '-',
                <Button size="compact-xs" variant="subtle" onClick={() => setRenaming(row)} data-testid="device-rename">
                  {t('wireless.command.rename')}
                </Button>,
              ],
            }))}
          />
          <Pager total={data.total} page={page} pageSize={PAGE_SIZE} onPage={setPage} />
        </Stack>
      )}
      <BindDialog
        kind={kind}
        action={binding}
        onClose={() => setBinding(null)}
        onPick={(group) => {
          const action = binding!;
          setBinding(null);
          void run(action, [...selected], { group });
        }}
      />
      <CertificateDialog serial={certifying} onClose={() => setCertifying(null)} />
      <RenameDialog
        device={renaming}
        onClose={() => setRenaming(null)}
        onSave={(name) => {
          const serial = renaming!.serial;
          setRenaming(null);
          void run('rename', [serial], { name });
        }}
      />
    </StatusFrame>
  );
}

function BindDialog(props: { kind: DeviceKind; action: DeviceCommand | null; onClose: () => void; onPick: (group: string) => void }) {
  const { t } = useTranslation();
  const [choices, setChoices] = useState<BindingChoice[] | null>(null);
  const [group, setGroup] = useState<string | null>(null);
  useEffect(() => {
    if (!props.action) return;
    setGroup(null);
    bindingChoices(props.kind).then(setChoices, () => setChoices([]));
  }, [props.action, props.kind]);
  const label = t(props.kind === 'ap' ? 'wireless.field.group' : 'wireless.field.profile');
  return (
    <Modal opened={props.action !== null} onClose={props.onClose} title={props.action ? t(`wireless.command.${props.action}`) : ''}>
      <Stack>
        <Select
          label={label}
          data={(choices ?? []).map((c) => ({ value: c.id, label: c.name }))}
          value={group}
          onChange={setGroup}
          placeholder={choices?.length === 0 ? t(props.kind === 'ap' ? 'wireless.noGroups' : 'wireless.noProfiles') : undefined}
          data-testid="bind-group"
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            {t('common.cancel')}
          </Button>
          <Button disabled={!group} onClick={() => group && props.onPick(group)} data-testid="bind-confirm">
            {t('common.confirm')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function RenameDialog(props: { device: DeviceRow | null; onClose: () => void; onSave: (name: string) => void }) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  useEffect(() => setName(props.device?.name ?? ''), [props.device]);
  return (
    <Modal opened={props.device !== null} onClose={props.onClose} title={t('wireless.command.rename')}>
      <Stack>
        <TextInput label={t('wireless.field.name')} value={name} maxLength={32} onChange={(e) => setName(e.currentTarget.value)} data-testid="rename-input" />
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            {t('common.cancel')}
          </Button>
          <Button disabled={name.trim() === ''} onClick={() => props.onSave(name.trim())} data-testid="rename-confirm">
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function downloadText(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-pem-file' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}

/**
 * A device certificate for an AP: the gateway makes the key and the certificate (subject = the
 * serial) and answers them once with its device CA; the three files are what the AP's agent is
 * installed with (apps/ap-agent/README.md). A device that makes its own key pastes its request
 * instead and gets the certificate and the CA only. Nothing is kept here once the dialog closes.
 */
function CertificateDialog(props: { serial: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [serial, setSerial] = useState('');
  const [csr, setCsr] = useState('');
  const [csrError, setCsrError] = useState<string | undefined>();
  const [bundle, setBundle] = useState<DeviceCertificateBundle | null>(null);
  useEffect(() => {
    setSerial(props.serial ?? '');
    setCsr('');
    setCsrError(undefined);
    setBundle(null);
  }, [props.serial]);
  const valid = deviceSerialField().safeParse(serial.trim().toLowerCase()).success;
  async function issue() {
    setCsrError(undefined);
    const reply = await issueDeviceCertificate(serial.trim().toLowerCase(), csr.trim() || undefined).catch(() => null);
    if (reply?.success && reply.data) return setBundle(reply.data);
    const fieldError = reply && !reply.success ? reply.errors?.csr : undefined;
    if (fieldError) setCsrError(t(fieldError));
    else showErrorNotice(t('wireless.certificate.failed'));
  }
  return (
    <Modal opened={props.serial !== null} onClose={props.onClose} title={t('wireless.certificate.title')}>
      <Stack>
        <Text size="sm">{t('wireless.certificate.hint')}</Text>
        <TextInput
          label={t('wireless.field.serial')}
          value={serial}
          maxLength={12}
          disabled={bundle !== null}
          error={serial !== '' && !valid ? t('validation.wireless.serial') : undefined}
          onChange={(e) => setSerial(e.currentTarget.value)}
          data-testid="certificate-serial"
        />
        <Textarea
          label={t('wireless.certificate.csr')}
          description={t('wireless.certificate.csrHint')}
          value={csr}
          autosize
          minRows={2}
          maxRows={8}
          maxLength={8192}
          disabled={bundle !== null}
          error={csrError}
          onChange={(e) => setCsr(e.currentTarget.value)}
          styles={{ input: { fontFamily: 'monospace', fontSize: 12 } }}
          data-testid="certificate-csr"
        />
        {bundle ? (
          <Group data-testid="certificate-files">
            {bundle.key !== undefined && (
              <Button variant="light" onClick={() => downloadText('key.pem', bundle.key!)} data-testid="certificate-key">
                {t('wireless.certificate.key')}
              </Button>
            )}
            <Button variant="light" onClick={() => downloadText('cert.pem', bundle.certificate)} data-testid="certificate-cert">
              {t('wireless.certificate.certificate')}
            </Button>
            <Button variant="light" onClick={() => downloadText('ca.pem', bundle.ca)} data-testid="certificate-ca">
              {t('wireless.certificate.ca')}
            </Button>
          </Group>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            {t('common.close')}
          </Button>
          {!bundle && (
            <Button disabled={!valid} onClick={() => void issue()} data-testid="certificate-issue">
              {t('wireless.certificate.issue')}
            </Button>
          )}
        </Group>
      </Stack>
    </Modal>
  );
}
