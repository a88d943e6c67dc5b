import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate } from 'react-router';
import { apiPost } from '../../api/api-client.js';
import { HOME_PATH, LOGIN_PATH } from '../../routes/navigation.js';
import { PageLoader } from '../../shell/page-loader.js';
import { PublicFrame } from '../../shell/public-frame.js';
import { logout } from '../../shell/session-actions.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { loadSession } from '../../state/session-loader.js';
import { useSessionStore } from '../../state/session-store.js';
import { PasswordChangeForm } from './password-change-form.js';
import { serverFieldErrors, type PasswordChange, type PasswordChangeErrors } from './password-change-rules.js';

/**
 * Password change (POST /api/changepwd). When the daemon requires it (first sign-in with
 * the factory password) every other console route leads here until it is done; the only
 * other way out is logging out.
 */
export default function ModPwdPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const status = useSessionStore((s) => s.status);
  const forced = useSessionStore((s) => s.mustChangePassword);
  const username = useSessionStore((s) => s.username);

  useEffect(() => {
    if (status === 'unknown') void loadSession();
  }, [status]);

  if (status === 'signedOut') return <Navigate to={LOGIN_PATH} replace />;
  if (status === 'unknown') return <PageLoader fullScreen />;

  const submit = async (values: PasswordChange): Promise<PasswordChangeErrors> => {
    try {
      const reply = await apiPost<{ csrf?: string }>('changepwd', { ...values });
      if (!reply.success) return serverFieldErrors(reply.errors);
      // The daemon starts a new session on a password change: its token replaces the old one.
      const session = useSessionStore.getState();
      session.update({ csrf: reply.data?.csrf || session.csrf, mustChangePassword: false });
      showSuccessNotice(t('login.modpwd.done'));
      navigate(HOME_PATH, { replace: true });
    } catch {
      // The client has shown the failure.
    }
    return {};
  };

  return (
    <PublicFrame title={t('login.modpwd.title')}>
      <PasswordChangeForm
        forced={forced}
        username={username}
        onSubmit={submit}
        onCancel={() => navigate(HOME_PATH)}
        onLogout={() => void logout(navigate)}
      />
    </PublicFrame>
  );
}
