import { useEffect, useState, type ReactNode } from 'react';
import type { TFunction } from 'i18next';
import { Alert, Badge, Group, Stack, Switch, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatSpeed, HEALTH_FINDING_KINDS, type HealthFindingKind, type HealthReport, type SecurityEvents } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { StatusFrame, StatusTable } from '../network-status/net-status-parts.js';
import { useMenuTitle } from '../../routes/current-route.js';

const REFRESH_MS = 10_000;

function Section(props: { title: string; children: ReactNode }) {
  return (
    <Stack gap="xs">
      <Title order={4}>{props.title}</Title>
      {props.children}
    </Stack>
  );
}

/** A finding or event in words: a conflict between two other devices names both MACs. React escapes the text. */
function findingText(t: TFunction, f: Pick<HealthReport['findings'][number], 'kind' | 'interface' | 'port' | 'ip' | 'mac' | 'otherMac'>): string {
  const key = f.kind === 'ipConflict' && f.otherMac ? 'health.finding.ipConflictPair' : `health.finding.${f.kind}`;
  return t(key, { interface: f.interface, ip: f.ip, mac: f.mac, otherMac: f.otherMac, port: f.port });
}

/** Which findings become events (`sysconf/events`): one switch per kind, saved as it is turned. */
function EventSettings() {
  const { t } = useTranslation();
  const [settings, setSettings] = useState<SecurityEvents | null>(null);
  useEffect(() => {
    apiGet<SecurityEvents>('sysconf/events')
      .then(setSettings)
      .catch(() => undefined);
  }, []);
  if (!settings) return null;
  async function toggle(kind: HealthFindingKind, on: boolean) {
    const next = { ...settings!, [kind]: on };
    const reply = await apiPost<SecurityEvents>('sysconf/events', { action: 'update', ...next }).catch(() => null);
    // Only what the device saved is shown as saved.
    if (reply?.success) setSettings(next);
  }
  return (
    <Group gap="lg" data-testid="health-event-settings">
      {HEALTH_FINDING_KINDS.map((kind) => (
        <Switch key={kind} label={t(`securityEvents.field.${kind}`)} checked={settings[kind]} onChange={(e) => void toggle(kind, e.currentTarget.checked)} />
      ))}
    </Group>
  );
}

/** Security → health monitoring (spec §2 /security/health, §3 "Health report", §8 findings). */
export default function HealthPage() {
  const { t, i18n } = useTranslation();
  const menuTitle = useMenuTitle();
  const { data, failed } = useStatusQuery<HealthReport>('sysconf/health', {}, REFRESH_MS);
  const time = (ms: number | null) => instantText(ms, i18n.language);
  const none = t('health.none');
  const msText = (v: number | null) => (v === null ? t('health.noAnswer') : t('health.ms', { value: v }));
  const pair = (a: number | null, b: number | null, f: (n: number) => string = String) => (a === null || b === null ? none : `${f(a)} / ${f(b)}`);

  return (
    <StatusFrame testId="health-page" title={menuTitle} failed={failed} loading={!data}>
      {data && (
        <Stack gap="lg">
          <Group gap="md">
            <Text size="sm">{t('health.interval', { seconds: data.interval })}</Text>
            <Text size="sm" c="dimmed">
              {data.sampled === null ? t('health.notSampled') : t('health.sampled', { time: time(data.sampled) })}
            </Text>
          </Group>
          {data.probes === 'unsupported' && (
            <Alert color="gray" variant="light" data-testid="health-probes-unsupported">
              {t('health.probesUnsupported')}
            </Alert>
          )}

          <Section title={t('health.section.findings')}>
            {data.findings.length === 0 ? (
              <Text size="sm" c="dimmed" data-testid="health-no-findings">
                {t('health.noFindings')}
              </Text>
            ) : (
              <StatusTable
                testId="health-findings"
                head={[t('health.field.event'), t('health.field.firstSeen'), t('health.field.lastSeen')]}
                rows={data.findings.map((f) => ({
                  key: `${f.kind} ${f.interface} ${f.port} ${f.ip} ${f.mac} ${f.otherMac}`,
                  cells: [
                    <Group gap={6} wrap="nowrap">
                      <Badge color="red" variant="light">
                        {t(`health.kind.${f.kind}`)}
                      </Badge>
                      <Text size="sm">{findingText(t, f)}</Text>
                    </Group>,
                    time(f.firstSeen),
                    time(f.lastSeen),
                  ],
                }))}
              />
            )}
          </Section>

          <Section title={t('health.section.disk')}>
            <StatusTable
              testId="health-disk"
              head={[t('health.field.partition'), t('health.field.total'), t('health.field.used'), t('health.field.free'), t('health.field.usage')]}
              rows={data.disk.map((d) => ({ key: d.partition, cells: [d.partition, formatBytes(d.total), formatBytes(d.used), formatBytes(d.free), `${d.usage}%`] }))}
            />
          </Section>

          <Section title={t('health.section.memory')}>
            <StatusTable
              testId="health-memory"
              head={[t('health.field.total'), t('health.field.used'), t('health.field.cache'), t('health.field.free'), t('health.field.usage')]}
              rows={
                data.memory
                  ? [{ key: 'memory', cells: [formatBytes(data.memory.total), formatBytes(data.memory.used), formatBytes(data.memory.cache), formatBytes(data.memory.free), `${data.memory.usage}%`] }]
                  : []
              }
            />
          </Section>

          <Section title={t('health.section.network')}>
            <StatusTable
              testId="health-network"
              head={[t('health.field.interface'), t('health.field.domain'), t('health.field.server'), t('health.field.dnsTime'), t('health.field.httpTime')]}
              rows={data.network.map((n) => ({ key: `${n.interface} ${n.server}`, cells: [n.interface, n.domain, n.server, msText(n.dnsTime), msText(n.httpTime)] }))}
            />
          </Section>

          <Section title={t('health.section.links', { time: time(data.links[0]?.since ?? null) || none })}>
            <StatusTable
              testId="health-links"
              head={[t('health.field.interface'), t('health.field.rate'), t('health.field.bytes'), t('health.field.packets'), t('health.field.dropped')]}
              rows={data.links.map((l) => ({
                key: `${l.interface} ${l.device}`,
                cells: [
                  l.interface === l.device ? l.interface : `${l.interface} (${l.device})`,
                  pair(l.rxRate, l.txRate, (n) => formatSpeed(n)),
                  pair(l.rxBytes, l.txBytes, (n) => formatBytes(n)),
                  pair(l.rxPackets, l.txPackets),
                  pair(l.rxDropped, l.txDropped),
                ],
              }))}
            />
          </Section>

          <Section title={t('health.section.events')}>
            <Text size="sm" fw={500}>
              {t('health.section.eventSettings')}
            </Text>
            <EventSettings />
            {data.events.total === 0 ? (
              <Text size="sm" c="dimmed">
                {t('health.noEvents')}
              </Text>
            ) : (
              <>
                <StatusTable
                  testId="health-events"
                  head={[t('health.field.time'), t('health.field.event')]}
                  rows={data.events.items.map((e) => ({
                    key: String(e.id),
                    cells: [time(e.time), findingText(t, e)],
                  }))}
                />
                <Text size="xs" c="dimmed">
                  {t('health.eventsTotal', { count: data.events.total })}
                </Text>
              </>
            )}
          </Section>
        </Stack>
      )}
    </StatusFrame>
  );
}
