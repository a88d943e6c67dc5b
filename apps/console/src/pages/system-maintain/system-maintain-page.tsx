import { Stack, Title } from '@mantine/core';
import '@mantine/core/styles/Drawer.css';
import { useTranslation } from 'react-i18next';
import { useCurrentRoute } from '../../routes/current-route.js';
import { JournalSection } from './journal-section.js';
import { MaintenanceUnavailableCard } from './maintenance-unavailable-card.js';

/**
 * System → Maintenance: the configuration history (list, changes, compare, revert). The
 * other maintenance functions are listed as not available in this build.
 */
export default function SystemMaintainPage() {
  const { t } = useTranslation();
  const route = useCurrentRoute();
  return (
    <Stack gap="lg" data-testid="system-maintain">
      <Title order={3}>{t(route?.label ?? 'menu.systemmaintain')}</Title>
      <JournalSection canRevert={route?.permission === 'modify'} />
      <MaintenanceUnavailableCard />
    </Stack>
  );
}
