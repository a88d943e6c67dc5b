import { notifications } from '@mantine/notifications';
import { i18n } from '../i18n/console-i18n.js';

function closeLabel() {
  return { 'aria-label': i18n.t('common.close') };
}

/**
 * Notices of the console. A notice with the same text as one still on screen is not shown
 * twice, so several calls failing together give one notice.
 */
export function showErrorNotice(message: string): void {
  notifications.show({
    id: `notice-error:${message}`,
    color: 'red',
    message,
    autoClose: 6000,
    closeButtonProps: closeLabel(),
    'data-testid': 'notice-error',
  });
}

export function showSuccessNotice(message: string): void {
  notifications.show({
    id: `notice-success:${message}`,
    color: 'teal',
    message,
    autoClose: 3000,
    closeButtonProps: closeLabel(),
    'data-testid': 'notice-success',
  });
}
