import { Stack } from '@mantine/core';
import { hotspotPortal, type AnyEntity } from '@portico/schema';
import EntityFormPage from '../entity/entity-form-page.js';
import { PortalUploadsPanel } from './portal-uploads-panel.js';

/**
 * The local portal (/hotspot/localportal): its settings form, then the files it shows
 * (picture, logo) and the custom page that can replace it.
 */
export default function PortalPage() {
  return (
    <Stack gap="md">
      <EntityFormPage entity={hotspotPortal as unknown as AnyEntity} mode="edit" />
      <PortalUploadsPanel />
    </Stack>
  );
}
