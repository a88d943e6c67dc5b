import { Group } from '@mantine/core';
import { LanguageSwitch } from './language-switch.js';
import { UserMenu } from './user-menu.js';

/**
 * The header's dropdowns. Loaded right after the shell: their popover and positioning code
 * is a fifth of the shell's size and nothing on first paint needs it.
 */
export default function HeaderMenus() {
  return (
    <Group gap="xs" wrap="nowrap">
      <LanguageSwitch />
      <UserMenu />
    </Group>
  );
}
