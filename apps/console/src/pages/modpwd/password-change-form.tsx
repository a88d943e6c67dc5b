import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Alert, Button, Group, PasswordInput, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { MSG } from '@portico/schema';
import { translateFieldError } from '../../i18n/console-i18n.js';
import {
  validatePasswordChange,
  type PasswordChange,
  type PasswordChangeErrors,
} from './password-change-rules.js';

const EMPTY: PasswordChange = { oldpassword: '', password: '', confirm: '' };

interface Props {
  /** The daemon requires the change: say so, and offer log out instead of cancel. */
  forced: boolean;
  username: string;
  /** Sends the change; resolves with the field errors to show (none on success). */
  onSubmit: (values: PasswordChange) => Promise<PasswordChangeErrors>;
  onCancel: () => void;
  onLogout: () => void;
}

/** Old password, new password, confirmation; spec §5 checked before anything is sent. */
export function PasswordChangeForm({ forced, username, onSubmit, onCancel, onLogout }: Props) {
  const { t } = useTranslation();
  const [values, setValues] = useState<PasswordChange>(EMPTY);
  const [errors, setErrors] = useState<PasswordChangeErrors>({});
  const [busy, setBusy] = useState(false);

  const change = (field: keyof PasswordChange) => (event: ChangeEvent<HTMLInputElement>) => {
    const value = event.currentTarget.value;
    setValues((current) => ({ ...current, [field]: value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validatePasswordChange(values);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      setErrors(await onSubmit(values));
    } finally {
      setBusy(false);
    }
  };

  const fieldError = (field: keyof PasswordChange) => {
    const key = errors[field];
    return key ? translateFieldError(key) : undefined;
  };
  const toggleLabel = { 'aria-label': t('login.togglePassword') };

  return (
    <form onSubmit={(event) => void submit(event)} noValidate>
      <Stack gap="md">
        {forced && (
          <Alert color="orange" variant="light" data-testid="modpwd-forced">
            {t(MSG.changePassword)}
          </Alert>
        )}
        <PasswordInput
          label={t('login.modpwd.oldPassword')}
          value={values.oldpassword}
          onChange={change('oldpassword')}
          error={fieldError('oldpassword')}
          autoComplete="current-password"
          visibilityToggleButtonProps={toggleLabel}
          data-testid="modpwd-old"
        />
        <PasswordInput
          label={t('login.modpwd.newPassword')}
          description={t('login.modpwd.rules')}
          value={values.password}
          onChange={change('password')}
          error={fieldError('password')}
          autoComplete="new-password"
          visibilityToggleButtonProps={toggleLabel}
          data-testid="modpwd-new"
        />
        <PasswordInput
          label={t('login.modpwd.confirmPassword')}
          value={values.confirm}
          onChange={change('confirm')}
          error={fieldError('confirm')}
          autoComplete="new-password"
          visibilityToggleButtonProps={toggleLabel}
          data-testid="modpwd-confirm"
        />
        <Button type="submit" loading={busy} fullWidth data-testid="modpwd-submit">
          {t('login.modpwd.submit')}
        </Button>
        <Group justify="center">
          {forced ? (
            <Button variant="subtle" color="gray" size="compact-sm" data-testid="logout" onClick={onLogout}>
              {t('common.logout')}
            </Button>
          ) : (
            <Button variant="subtle" color="gray" size="compact-sm" data-testid="modpwd-cancel" onClick={onCancel}>
              {t('common.cancel')}
            </Button>
          )}
        </Group>
        {username && (
          <Text size="xs" c="dimmed" ta="center">
            {t('common.signedInAs', { username })}
          </Text>
        )}
      </Stack>
    </form>
  );
}
