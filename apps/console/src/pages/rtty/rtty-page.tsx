import { useEffect, useState } from 'react';
import { Alert, Anchor, Box, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { MSG, TERMINAL_PATH, type TerminalStatus } from '@portico/schema';
import { ApiError, apiGetReply } from '../../api/api-client.js';
import { translateMessage } from '../../i18n/console-i18n.js';
import { LOGIN_PATH } from '../../routes/navigation.js';
import { LanguageSwitch } from '../../shell/language-switch.js';
import { usePageTitle } from '../../shell/page-title.js';
import { parseSession } from '../../state/session-store.js';
import { RttyTerminal } from './rtty-terminal.js';

/** What the page found out before opening a terminal. */
export type RttyAccess =
  | { kind: 'checking' }
  | { kind: 'signedOut' }
  | { kind: 'refused'; message: string }
  | { kind: 'ready'; csrf: string; status: TerminalStatus };

/** The session (its CSRF token) and the terminal's status; never leaves the page on a 401. */
export async function checkAccess(): Promise<RttyAccess> {
  try {
    const session = await apiGetReply<unknown>('islogin');
    const info = session.success ? parseSession(session.data) : null;
    if (!info?.username) return { kind: 'signedOut' };
    const reply = await apiGetReply<TerminalStatus>(TERMINAL_PATH);
    if (!reply.success) return { kind: 'refused', message: reply.msg === MSG.forbidden ? 'system.rtty.forbidden' : reply.msg };
    const status = reply.data as TerminalStatus;
    if (!status.permitted) return { kind: 'refused', message: 'system.rtty.forbidden' };
    if (!status.available) return { kind: 'refused', message: 'system.rtty.unavailable' };
    return { kind: 'ready', csrf: info.csrf, status };
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'unauthorized') return { kind: 'signedOut' };
    return { kind: 'refused', message: 'system.rtty.failed' };
  }
}

/**
 * /rtty: a terminal on the device, outside the console's shell (spec §2 public routes). The page
 * loads for anyone; the terminal needs an administrator's console session with write permission
 * on the telnet client's page. Without a session the page says so and links to sign-in.
 */
export default function RttyPage() {
  const { t } = useTranslation();
  usePageTitle(t('system.rtty.title'));
  const [access, setAccess] = useState<RttyAccess>({ kind: 'checking' });
  useEffect(() => {
    let live = true;
    void checkAccess().then((found) => live && setAccess(found));
    return () => {
      live = false;
    };
  }, []);

  return (
    <Box mih="100vh" bg="var(--mantine-color-gray-0)" p="md">
      <Stack gap="sm" h="calc(100vh - 2 * var(--mantine-spacing-md))">
        <Group justify="space-between">
          <Title order={1} size="h3">
            {t('common.productName')} · {t('system.rtty.title')}
          </Title>
          <LanguageSwitch />
        </Group>
        <RttyBody access={access} />
      </Stack>
    </Box>
  );
}

export function RttyBody({ access }: { access: RttyAccess }) {
  const { t } = useTranslation();
  if (access.kind === 'checking') return <Loader data-testid="rtty-checking" />;
  if (access.kind === 'signedOut') {
    return (
      <Alert color="yellow" data-testid="rtty-signed-out">
        <Text>{t('system.rtty.signIn')}</Text>
        <Anchor component={Link} to={LOGIN_PATH} data-testid="rtty-login-link">
          {t('system.rtty.signInLink')}
        </Anchor>
      </Alert>
    );
  }
  if (access.kind === 'refused') {
    return (
      <Alert color="red" data-testid="rtty-refused">
        {translateMessage(access.message)}
      </Alert>
    );
  }
  return (
    <>
      <Text c="dimmed" size="sm">
        {t('system.rtty.help')}
      </Text>
      <RttyTerminal csrf={access.csrf} status={access.status} />
    </>
  );
}
