import { useEffect, useRef, useState } from 'react';
import { Button, Code, Group, NumberInput, Paper, ScrollArea, Select, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { DIAGNOSIS_TOOLS, type DiagnosisJob } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';
import { useCurrentRoute } from '../../routes/current-route.js';
import { MenuPageHeading } from '../../shell/page-heading.js';

/** How often a running job's new lines are asked for. */
const POLL_MS = 500;

type Tool = (typeof DIAGNOSIS_TOOLS)[number];

/**
 * Network diagnosis (/system/networkdiagnosis): ping or route trace from the device, from a
 * chosen interface; the output appears line by line as the device prints it (the job is
 * polled by offset) and a running job can be stopped.
 */
export default function DiagnosisPage() {
  const { t } = useTranslation();
  const route = useCurrentRoute();
  const canAct = route?.permission === 'modify' || route?.permission === 'access';
  const [tool, setTool] = useState<Tool>('ping');
  const [target, setTarget] = useState('');
  const [ifname, setIfname] = useState('');
  const [count, setCount] = useState(4);
  const [maxhops, setMaxhops] = useState(30);
  const [wait, setWait] = useState(2);
  const [interfaces, setInterfaces] = useState<string[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [job, setJob] = useState<{ id: string; lines: string[]; running: boolean; code: number | null; stopped: boolean } | null>(null);
  const polling = useRef<number | null>(null);

  useEffect(() => {
    void apiGet<{ interfaces: string[] }>('sysconf/diagnosis').then((d) => setInterfaces(d.interfaces), () => undefined);
    return () => {
      if (polling.current !== null) window.clearTimeout(polling.current);
    };
  }, []);

  function poll(id: string, offset: number) {
    polling.current = window.setTimeout(() => {
      void apiGet<DiagnosisJob>('sysconf/diagnosis', { id, offset }).then(
        (d) => {
          setJob((j) => (j && j.id === id ? { ...j, lines: [...j.lines, ...d.lines], running: d.running, code: d.code, stopped: d.stopped } : j));
          if (d.running || d.next > offset + d.lines.length) poll(id, d.next);
        },
        () => setJob((j) => (j ? { ...j, running: false } : j)),
      );
    }, POLL_MS);
  }

  async function start() {
    if (polling.current !== null) window.clearTimeout(polling.current);
    const reply = await apiPost<{ id: string }>('sysconf/diagnosis', { action: 'start', tool, target: target.trim(), ifname, count, maxhops, wait }).catch(() => null);
    if (!reply) return;
    setErrors(reply.success ? {} : (reply.errors ?? {}));
    if (!reply.success || !reply.data) return;
    setJob({ id: reply.data.id, lines: [], running: true, code: null, stopped: false });
    poll(reply.data.id, 0);
  }

  async function stop() {
    if (job) await apiPost('sysconf/diagnosis', { action: 'stop', id: job.id }).catch(() => null);
  }

  const err = (field: string) => (errors[field] ? t(errors[field]!) : null);
  return (
    <Stack gap="md">
      <MenuPageHeading />
      <Paper withBorder p="lg" radius="md">
        <Group align="flex-start">
          <Select
            label={t('system.diagnosis.tool')}
            data={DIAGNOSIS_TOOLS.map((v) => ({ value: v, label: t(`system.diagnosis.option.${v}`) }))}
            value={tool}
            onChange={(v) => v && setTool(v as Tool)}
            allowDeselect={false}
            data-testid="diagnosis-tool"
            w={160}
          />
          <TextInput label={t('system.diagnosis.target')} value={target} onChange={(e) => setTarget(e.currentTarget.value)} error={err('target')} maxLength={253} data-testid="diagnosis-target" />
          <Select
            label={t('system.diagnosis.ifname')}
            data={[{ value: '', label: t('system.diagnosis.anyInterface') }, ...interfaces.map((i) => ({ value: i, label: i }))]}
            value={ifname}
            onChange={(v) => setIfname(v ?? '')}
            allowDeselect={false}
            error={err('ifname')}
            w={160}
          />
          <NumberInput label={t('system.diagnosis.count')} value={count} onChange={(v) => setCount(Number(v) || 1)} min={1} max={100} error={err('count')} w={100} />
          {tool === 'traceroute' && (
            <NumberInput label={t('system.diagnosis.maxhops')} value={maxhops} onChange={(v) => setMaxhops(Number(v) || 1)} min={1} max={64} error={err('maxhops')} w={120} />
          )}
          <NumberInput label={t('system.diagnosis.wait')} value={wait} onChange={(v) => setWait(Number(v) || 1)} min={1} max={10} error={err('wait')} w={140} />
        </Group>
        <Group mt="md">
          <Button onClick={() => void start()} disabled={!canAct || job?.running === true || target.trim() === ''} data-testid="diagnosis-start">
            {t('system.diagnosis.start')}
          </Button>
          <Button variant="default" color="red" onClick={() => void stop()} disabled={!job?.running} data-testid="diagnosis-stop">
            {t('system.diagnosis.stop')}
          </Button>
        </Group>
      </Paper>
      {job && (
        <Paper withBorder p="lg" radius="md">
          <Text fw={600} mb="xs">
            {t('system.diagnosis.output')}
          </Text>
          <ScrollArea h={360}>
            {/* The tool's output is text: React escapes it. */}
            <Code block data-testid="diagnosis-output">
              {job.lines.join('\n')}
            </Code>
          </ScrollArea>
          <Text size="sm" c="dimmed" mt="xs" data-testid="diagnosis-status">
            {job.running ? t('system.diagnosis.running') : job.stopped ? t('system.diagnosis.stopped') : t('system.diagnosis.finished', { code: job.code ?? '' })}
          </Text>
        </Paper>
      )}
    </Stack>
  );
}
