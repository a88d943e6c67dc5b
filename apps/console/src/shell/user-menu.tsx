import { Button, Menu } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { CHANGE_PASSWORD_PATH } from '../routes/navigation.js';
import { useSessionStore } from '../state/session-store.js';
import { logout } from './session-actions.js';

/** The signed-in account: who it is, change password, log out. */
export function UserMenu() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const username = useSessionStore((s) => s.username);
  const role = useSessionStore((s) => s.role);

  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="subtle" size="compact-sm" data-testid="user-menu" aria-label={t('common.userMenu')}>
          {username}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>
          {t('common.signedInAs', { username })} · {t(`common.role.${role}`)}
        </Menu.Label>
        <Menu.Item data-testid="change-password" onClick={() => navigate(CHANGE_PASSWORD_PATH)}>
          {t('common.changePassword')}
        </Menu.Item>
        <Menu.Divider />
        <Menu.Item color="red" data-testid="logout" onClick={() => void logout(navigate)}>
          {t('common.logout')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
