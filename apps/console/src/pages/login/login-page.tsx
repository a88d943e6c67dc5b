import { useState, type FormEvent } from 'react';
import { Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { MSG } from '@portico/schema';
import { apiPost } from '../../api/api-client.js';
import { adoptServerLanguage } from '../../i18n/console-i18n.js';
import { CHANGE_PASSWORD_PATH, HOME_PATH } from '../../routes/navigation.js';
import { PublicFrame } from '../../shell/public-frame.js';
import { showErrorNotice } from '../../shell/notice.js';
import { loadSession } from '../../state/session-loader.js';
import { useMenuStore } from '../../state/menu-store.js';
import { parseSession, useSessionStore } from '../../state/session-store.js';

/**
 * Sign-in (POST /api/login). Empty fields are refused here with the daemon's own message;
 * wrong credentials and the 5-minute lock come back as `msg.loginWrong` / `msg.loginLocked`
 * and are shown by the API client.
 */
export default function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [missing, setMissing] = useState({ username: false, password: false });
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const name = username.trim();
    const empty = { username: name === '', password: password === '' };
    setMissing(empty);
    if (empty.username || empty.password) {
      showErrorNotice(t(MSG.loginRequired));
      return;
    }
    setBusy(true);
    try {
      const reply = await apiPost<unknown>('login', { username: name, password });
      if (!reply.success) {
        setPassword('');
        return;
      }
      const session = parseSession(reply.data);
      useMenuStore.getState().reset();
      useSessionStore.getState().signIn(session);
      await adoptServerLanguage(session.lang);
      // The sign-in reply has no capabilities; the session check adds them in the background.
      void loadSession();
      navigate(session.mustChangePassword ? CHANGE_PASSWORD_PATH : HOME_PATH, { replace: true });
    } catch {
      // The client has shown the failure; the form stays as it is.
    } finally {
      setBusy(false);
    }
  };

  return (
    <PublicFrame title={t('login.title')}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack gap="md">
          <TextInput
            label={t('login.username')}
            value={username}
            onChange={(event) => setUsername(event.currentTarget.value)}
            error={missing.username}
            autoComplete="username"
            autoFocus
            data-testid="login-username"
          />
          <PasswordInput
            label={t('login.password')}
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            error={missing.password}
            autoComplete="current-password"
            visibilityToggleButtonProps={{ 'aria-label': t('login.togglePassword') }}
            data-testid="login-password"
          />
          <Button type="submit" loading={busy} fullWidth data-testid="login-submit">
            {t('login.submit')}
          </Button>
        </Stack>
      </form>
    </PublicFrame>
  );
}
