import { useEffect, useState } from 'react';
import { Alert, Anchor, Button, Card, Group, Loader, PasswordInput, Select, Stack, Stepper, Text, TextInput } from '@mantine/core';
import '@mantine/core/styles/Stepper.css';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { systemTime, type AnyEntity } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';
import { EntityForm } from '../entity/entity-form.js';
import { translateFieldError } from '../../i18n/console-i18n.js';
import { MenuPageHeading } from '../../shell/page-heading.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { useSessionStore } from '../../state/session-store.js';
import { useCurrentRoute } from '../../routes/current-route.js';
import { PasswordChangeForm } from '../modpwd/password-change-form.js';
import { serverFieldErrors, type PasswordChange, type PasswordChangeErrors } from '../modpwd/password-change-rules.js';
import { lanUpdate, WAN_PROTOS, wanFormOf, wanUpdate, WIZARD_STEPS, type InterfaceRow, type WanForm } from './wizard-model.js';

type Errors = Record<string, string>;

/**
 * The first-run wizard: the Internet connection (the first WAN), the LAN address, Wi-Fi (set
 * up later, in the wireless pages), the time zone and NTP, the admin password. Each step saves through the routes the
 * Network and password pages use, so the journal, the checks and the confirmation of a change
 * that can cut access are theirs.
 */
export default function WizardPage() {
  const { t } = useTranslation();
  const route = useCurrentRoute();
  const canModify = route?.permission === 'modify';
  const [active, setActive] = useState(0);
  const [rows, setRows] = useState<InterfaceRow[] | null>(null);
  const [wan, setWan] = useState<WanForm | null>(null);
  const [lan, setLan] = useState({ ipaddr: '', netmask: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    apiGet<{ items: InterfaceRow[] }>('network')
      .then((data) => {
        setRows(data.items);
        const wanRow = data.items.find((row) => row.role === 'wan');
        const lanRow = data.items.find((row) => row.role === 'lan');
        if (wanRow) setWan(wanFormOf(wanRow));
        if (lanRow) setLan({ ipaddr: lanRow.ipaddr, netmask: lanRow.netmask });
      })
      .catch(() => setRows([]));
  }, []);

  const wanRow = rows?.find((row) => row.role === 'wan');
  const lanRow = rows?.find((row) => row.role === 'lan');
  const next = () => {
    setErrors({});
    setActive((step) => Math.min(step + 1, WIZARD_STEPS.length));
  };

  async function save(row: InterfaceRow, body: Record<string, unknown>) {
    setSaving(true);
    try {
      const reply = await apiPost<unknown>('network', { ...body, action: 'update', id: row.id });
      if (!reply.success) {
        setErrors(reply.errors ?? {});
        return;
      }
      showSuccessNotice(t('wizard.saved'));
      const fresh = await apiGet<{ items: InterfaceRow[] }>('network');
      setRows(fresh.items);
      next();
    } catch {
      // Reported by the client.
    } finally {
      setSaving(false);
    }
  }

  const changePassword = async (values: PasswordChange): Promise<PasswordChangeErrors> => {
    try {
      const reply = await apiPost<{ csrf?: string }>('changepwd', { ...values });
      if (!reply.success) return serverFieldErrors(reply.errors);
      const session = useSessionStore.getState();
      session.update({ csrf: reply.data?.csrf || session.csrf, mustChangePassword: false });
      showSuccessNotice(t('login.modpwd.done'));
      next();
    } catch {
      // Reported by the client.
    }
    return {};
  };

  const fieldError = (name: string) => (errors[name] ? translateFieldError(errors[name]!) : undefined);
  const username = useSessionStore((s) => s.username);

  if (rows === null) {
    return (
      <Stack data-testid="wizard-page">
        <MenuPageHeading />
        <Loader size="sm" />
      </Stack>
    );
  }

  return (
    <Stack gap="lg" data-testid="wizard-page">
      <MenuPageHeading />
      <Text c="dimmed">{t('wizard.text')}</Text>
      <Stepper active={active} onStepClick={setActive} allowNextStepsSelect={false}>
        <Stepper.Step label={t('wizard.step.wan')} data-testid="wizard-step-wan">
          <Card withBorder padding="md">
            {!wanRow || !wan ? (
              <Alert color="orange">{t('wizard.noWan')}</Alert>
            ) : (
              <Stack gap="sm" data-testid="wizard-wan">
                <Text size="sm">{t('wizard.wanText', { ifname: wanRow.ifname })}</Text>
                <Select
                  label={t('wizard.proto')}
                  data={WAN_PROTOS.map((value) => ({ value, label: t(`wizard.protoOption.${value}`) }))}
                  value={wan.proto}
                  onChange={(value) => value && setWan({ ...wan, proto: value as WanForm['proto'] })}
                  allowDeselect={false}
                  data-testid="wizard-wan-proto"
                  error={fieldError('proto')}
                />
                {wan.proto === 'static' && (
                  <>
                    <TextInput label={t('networkInterface.field.ipaddr')} value={wan.ipaddr} onChange={(e) => setWan({ ...wan, ipaddr: e.currentTarget.value })} error={fieldError('ipaddr')} data-testid="wizard-wan-ipaddr" />
                    <TextInput label={t('networkInterface.field.netmask')} value={wan.netmask} onChange={(e) => setWan({ ...wan, netmask: e.currentTarget.value })} error={fieldError('netmask')} data-testid="wizard-wan-netmask" />
                    <TextInput label={t('networkInterface.field.gateway')} value={wan.gateway} onChange={(e) => setWan({ ...wan, gateway: e.currentTarget.value })} error={fieldError('gateway')} data-testid="wizard-wan-gateway" />
                  </>
                )}
                {wan.proto === 'pppoe' && (
                  <>
                    <TextInput label={t('networkInterface.field.pppoe_username')} value={wan.pppoe_username} onChange={(e) => setWan({ ...wan, pppoe_username: e.currentTarget.value })} error={fieldError('pppoe_username')} data-testid="wizard-wan-user" />
                    <PasswordInput label={t('networkInterface.field.pppoe_password')} value={wan.pppoe_password} onChange={(e) => setWan({ ...wan, pppoe_password: e.currentTarget.value })} error={fieldError('pppoe_password')} data-testid="wizard-wan-password" />
                  </>
                )}
                <TextInput label={t('networkInterface.field.dns')} description={t('wizard.dnsHelp')} value={wan.dns} onChange={(e) => setWan({ ...wan, dns: e.currentTarget.value })} error={fieldError('dns') ?? fieldError('dns.0')} />
                <Group>
                  <Button variant="default" onClick={next} data-testid="wizard-skip">
                    {t('wizard.skip')}
                  </Button>
                  <Button loading={saving} disabled={!canModify} onClick={() => void save(wanRow, wanUpdate(wanRow, wan))} data-testid="wizard-wan-save">
                    {t('wizard.saveNext')}
                  </Button>
                </Group>
              </Stack>
            )}
          </Card>
        </Stepper.Step>
        <Stepper.Step label={t('wizard.step.lan')} data-testid="wizard-step-lan">
          <Card withBorder padding="md">
            {!lanRow ? (
              <Alert color="orange">{t('wizard.noLan')}</Alert>
            ) : (
              <Stack gap="sm" data-testid="wizard-lan">
                <Text size="sm">{t('wizard.lanText', { ifname: lanRow.ifname })}</Text>
                <TextInput label={t('networkInterface.field.ipaddr')} value={lan.ipaddr} onChange={(e) => setLan({ ...lan, ipaddr: e.currentTarget.value })} error={fieldError('ipaddr')} data-testid="wizard-lan-ipaddr" />
                <TextInput label={t('networkInterface.field.netmask')} value={lan.netmask} onChange={(e) => setLan({ ...lan, netmask: e.currentTarget.value })} error={fieldError('netmask')} data-testid="wizard-lan-netmask" />
                <Text size="sm" c="dimmed">
                  {t('wizard.lanHelp')}
                </Text>
                <Group>
                  <Button variant="default" onClick={next} data-testid="wizard-skip">
                    {t('wizard.skip')}
                  </Button>
                  <Button loading={saving} disabled={!canModify} onClick={() => void save(lanRow, lanUpdate(lanRow, lan.ipaddr, lan.netmask))} data-testid="wizard-lan-save">
                    {t('wizard.saveNext')}
                  </Button>
                </Group>
              </Stack>
            )}
          </Card>
        </Stepper.Step>
        <Stepper.Step label={t('wizard.step.wifi')} data-testid="wizard-step-wifi">
          <Card withBorder padding="md">
            <Stack gap="sm" data-testid="wizard-wifi">
              <Text size="sm">{t('wizard.wifiText')}</Text>
              <Anchor component={Link} to="/wirelessmanage/grouping">
                {t('wizard.wifiLink')}
              </Anchor>
              <Group>
                <Button onClick={next} data-testid="wizard-wifi-later">
                  {t('wizard.later')}
                </Button>
              </Group>
            </Stack>
          </Card>
        </Stepper.Step>
        <Stepper.Step label={t('wizard.step.time')} data-testid="wizard-step-time">
          <Card withBorder padding="md" data-testid="wizard-time">
            <Stack gap="sm">
              <Text size="sm">{t('wizard.timeText')}</Text>
              {/* The Time page's own form: its checks (a zone of the device's tz database) and journal. */}
              <EntityForm entity={systemTime as unknown as AnyEntity} mode="edit" id={null} onSaved={next} onCancel={next} />
            </Stack>
          </Card>
        </Stepper.Step>
        <Stepper.Step label={t('wizard.step.password')} data-testid="wizard-step-password">
          <Card withBorder padding="md" data-testid="wizard-password">
            <PasswordChangeForm forced={false} username={username} onSubmit={changePassword} onCancel={next} onLogout={next} />
          </Card>
        </Stepper.Step>
        <Stepper.Completed>
          <Alert color="green" data-testid="wizard-done">
            {t('wizard.done')}
          </Alert>
        </Stepper.Completed>
      </Stepper>
    </Stack>
  );
}
