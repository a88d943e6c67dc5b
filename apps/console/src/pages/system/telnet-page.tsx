import { useEffect, useRef, useState } from 'react';
import { Button, Code, Group, NumberInput, Paper, ScrollArea, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { apiGet, apiPost } from '../../api/api-client.js';
import { useCurrentRoute } from '../../routes/current-route.js';
import { MenuPageHeading } from '../../shell/page-heading.js';

const POLL_MS = 500;

interface TelnetView {
  id: string;
  host: string;
  port: number;
  state: 'connecting' | 'open' | 'closed';
  reason: string | null;
  text: string;
  next: number;
}

/**
 * Telnet client (/system/telnetclient): a line console to a host from the device. Output is
 * read by offset while the session lives and shown as text; each line is sent on Enter.
 */
export default function TelnetPage() {
  const { t } = useTranslation();
  const route = useCurrentRoute();
  const canAct = route?.permission === 'modify' || route?.permission === 'access';
  const [host, setHost] = useState('');
  const [port, setPort] = useState(23);
  const [line, setLine] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [session, setSession] = useState<Omit<TelnetView, 'next'> | null>(null);
  const timer = useRef<number | null>(null);

  useEffect(
    () => () => {
      if (timer.current !== null) window.clearTimeout(timer.current);
    },
    [],
  );

  function poll(id: string, offset: number) {
    timer.current = window.setTimeout(() => {
      void apiGet<TelnetView>('sysconf/telnet', { id, offset }).then(
        (v) => {
          setSession((s) => (s && s.id === id ? { ...v, text: s.text + v.text } : s));
          if (v.state !== 'closed') poll(id, v.next);
        },
        () => undefined,
      );
    }, POLL_MS);
  }

  async function connect() {
    if (timer.current !== null) window.clearTimeout(timer.current);
    const reply = await apiPost<{ id: string }>('sysconf/telnet', { action: 'open', host: host.trim(), port }).catch(() => null);
    if (!reply) return;
    setErrors(reply.success ? {} : (reply.errors ?? {}));
    if (!reply.success || !reply.data) return;
    setSession({ id: reply.data.id, host: host.trim(), port, state: 'connecting', reason: null, text: '' });
    poll(reply.data.id, 0);
  }

  async function send() {
    if (!session) return;
    const reply = await apiPost('sysconf/telnet', { action: 'send', id: session.id, line }).catch(() => null);
    if (reply?.success) setLine('');
    else setErrors(reply && !reply.success ? (reply.errors ?? {}) : {});
  }

  const err = (field: string) => (errors[field] ? t(errors[field]!) : null);
  const open = session?.state === 'open';
  const status = !session
    ? ''
    : session.state === 'open'
      ? t('system.telnet.state.open', { host: session.host, port: session.port })
      : session.state === 'connecting'
        ? t('system.telnet.state.connecting')
        : session.reason
          ? t(`system.telnet.reason.${session.reason}`)
          : t('system.telnet.state.closed');
  return (
    <Stack gap="md">
      <MenuPageHeading />
      <Paper withBorder p="lg" radius="md">
        <Text size="sm" c="dimmed" mb="sm">
          {t('system.telnet.help')}
        </Text>
        <Group align="flex-start">
          <TextInput label={t('system.telnet.host')} value={host} onChange={(e) => setHost(e.currentTarget.value)} error={err('host')} maxLength={253} data-testid="telnet-host" />
          <NumberInput label={t('system.telnet.port')} value={port} onChange={(v) => setPort(Number(v) || 23)} min={1} max={65535} error={err('port')} w={110} data-testid="telnet-port" />
        </Group>
        <Group mt="md">
          <Button onClick={() => void connect()} disabled={!canAct || host.trim() === '' || open || session?.state === 'connecting'} data-testid="telnet-connect">
            {t('system.telnet.connect')}
          </Button>
          <Button variant="default" onClick={() => session && void apiPost('sysconf/telnet', { action: 'close', id: session.id })} disabled={!open} data-testid="telnet-disconnect">
            {t('system.telnet.disconnect')}
          </Button>
        </Group>
      </Paper>
      {session && (
        <Paper withBorder p="lg" radius="md">
          <ScrollArea h={360}>
            {/* The server's output is text: React escapes it; control characters were removed by the daemon. */}
            <Code block data-testid="telnet-output">
              {session.text}
            </Code>
          </ScrollArea>
          <Text size="sm" c="dimmed" mt="xs" data-testid="telnet-status">
            {status}
          </Text>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void send();
            }}
          >
            <Group mt="sm" align="flex-start">
              <TextInput flex={1} label={t('system.telnet.line')} value={line} onChange={(e) => setLine(e.currentTarget.value)} error={err('line')} maxLength={1024} disabled={!open} data-testid="telnet-line" />
              <Button type="submit" mt={24} disabled={!open} data-testid="telnet-send">
                {t('system.telnet.send')}
              </Button>
            </Group>
          </form>
        </Paper>
      )}
    </Stack>
  );
}
