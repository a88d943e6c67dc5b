import { Stack } from '@mantine/core';
import { hotspotReminder, type AnyEntity } from '@portico/schema';
import EntityFormPage from '../entity/entity-form-page.js';
import { ReminderListPanel } from './reminder-list-panel.js';

/**
 * The remote expiration reminder (/hotspot/expirationnotice): its settings form, then the
 * clients it has reminded in the current interval.
 */
export default function ReminderPage() {
  return (
    <Stack gap="md">
      <EntityFormPage entity={hotspotReminder as unknown as AnyEntity} mode="edit" />
      <ReminderListPanel />
    </Stack>
  );
}
