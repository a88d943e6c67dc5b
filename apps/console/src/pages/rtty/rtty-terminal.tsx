import { useEffect, useRef, useState } from 'react';
import { Alert, Box, Button, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import {
  CSRF_PROTOCOL_PREFIX,
  TERMINAL_PATH,
  TERMINAL_PROTOCOL,
  type TerminalEnded,
  type TerminalStatus,
} from '@portico/schema';
import { apiGetReply } from '../../api/api-client.js';

/** Where the terminal is: connecting, open, or ended (with the daemon's reason when it gave one). */
type Phase =
  | { kind: 'connecting' }
  | { kind: 'open' }
  | { kind: 'ended'; ended: TerminalEnded | null; busy: boolean };

/** The terminal's WebSocket address on this page's own host and scheme. */
export function terminalUrl(location: Pick<Location, 'protocol' | 'host'>): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/api/${TERMINAL_PATH}`;
}

/** The subprotocols offered: the terminal's, and the session's CSRF token (no header can carry it). */
export function terminalProtocols(csrf: string): string[] {
  return [TERMINAL_PROTOCOL, `${CSRF_PROTOCOL_PREFIX}${csrf}`];
}

/** Why the socket ended, for the line under the terminal. */
function endedText(t: (key: string, values?: Record<string, unknown>) => string, phase: Extract<Phase, { kind: 'ended' }>, status: TerminalStatus): string {
  if (phase.busy) return t('system.rtty.busy', { max: status.max });
  if (!phase.ended) return t('system.rtty.failed');
  return t(`system.rtty.ended.${phase.ended.reason}`, { status: phase.ended.status ?? '-', minutes: Math.round(status.idleSeconds / 60) });
}

/**
 * xterm.js (loaded with this page only) on the terminal's WebSocket: keystrokes go out as binary
 * frames, the device's output comes back as binary frames, and every size change of the
 * terminal (fitted to its box) is sent as a resize message.
 */
export function RttyTerminal({ csrf, status }: { csrf: string; status: TerminalStatus }) {
  const { t } = useTranslation();
  const box = useRef<HTMLDivElement>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'connecting' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let disposed = false;
    let cleanup: () => void = () => undefined;
    setPhase({ kind: 'connecting' });
    void import('./rtty-xterm.js').then(({ Terminal, FitAddon }) => {
      if (disposed || !box.current) return;
      const terminal = new Terminal({ cursorBlink: true, fontFamily: 'monospace', fontSize: 14, scrollback: 5000 });
      const fit = new FitAddon();
      terminal.loadAddon(fit);
      terminal.open(box.current);
      fit.fit();

      const socket = new WebSocket(terminalUrl(window.location), terminalProtocols(csrf));
      socket.binaryType = 'arraybuffer';
      const encoder = new TextEncoder();
      let ended: TerminalEnded | null = null;
      const send = (data: Uint8Array | string) => socket.readyState === WebSocket.OPEN && socket.send(data);
      const sendSize = () => send(JSON.stringify({ type: 'resize', rows: terminal.rows, cols: terminal.cols }));

      socket.addEventListener('open', () => {
        setPhase({ kind: 'open' });
        sendSize();
        terminal.focus();
      });
      socket.addEventListener('message', (event: MessageEvent<ArrayBuffer | string>) => {
        if (typeof event.data === 'string') ended = JSON.parse(event.data) as TerminalEnded;
        else terminal.write(new Uint8Array(event.data));
      });
      socket.addEventListener('close', () => {
        if (disposed) return;
        // A refused upgrade gives the page no reason: a full device is told apart by its status.
        if (ended) setPhase({ kind: 'ended', ended, busy: false });
        else
          void apiGetReply<TerminalStatus>(TERMINAL_PATH)
            .then((reply) => reply.success && (reply.data as TerminalStatus).open >= (reply.data as TerminalStatus).max)
            .catch(() => false)
            .then((busy) => !disposed && setPhase({ kind: 'ended', ended: null, busy }));
      });
      const typed = terminal.onData((data) => send(encoder.encode(data)));
      // Mouse reports that are not UTF-8: each character is one byte.
      const binary = terminal.onBinary((data) => send(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff)));
      const resized = terminal.onResize(sendSize);
      const refit = () => fit.fit();
      window.addEventListener('resize', refit);
      cleanup = () => {
        window.removeEventListener('resize', refit);
        typed.dispose();
        binary.dispose();
        resized.dispose();
        socket.close();
        terminal.dispose();
      };
    });
    return () => {
      disposed = true;
      cleanup();
    };
  }, [csrf, attempt]);

  return (
    <>
      {phase.kind === 'ended' ? (
        <Alert color={phase.ended?.reason === 'exited' ? 'blue' : 'yellow'} data-testid="rtty-ended">
          <Group justify="space-between">
            <Text>{endedText(t, phase, status)}</Text>
            <Button size="xs" onClick={() => setAttempt((n) => n + 1)} data-testid="rtty-reconnect">
              {t('system.rtty.reconnect')}
            </Button>
          </Group>
        </Alert>
      ) : (
        <Text size="sm" data-testid="rtty-state">
          {phase.kind === 'open' ? t('system.rtty.connected', { minutes: Math.round(status.idleSeconds / 60) }) : t('system.rtty.connecting')}
        </Text>
      )}
      <Box ref={box} flex={1} mih={240} bg="#000" p={4} data-testid="rtty-terminal" />
    </>
  );
}
