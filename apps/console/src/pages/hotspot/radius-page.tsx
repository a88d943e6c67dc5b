import { Stack } from '@mantine/core';
import { hotspotRadius, type AnyEntity } from '@portico/schema';
import EntityFormPage from '../entity/entity-form-page.js';
import { RadiusTestPanel } from './radius-test-panel.js';

/** The RADIUS server (/hotspot/radius): its settings form, then the connectivity test. */
export default function RadiusPage() {
  return (
    <Stack gap="md">
      <EntityFormPage entity={hotspotRadius as unknown as AnyEntity} mode="edit" />
      <RadiusTestPanel />
    </Stack>
  );
}
