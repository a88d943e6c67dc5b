import { Paper, Stack } from '@mantine/core';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import type { AnyEntity } from '@portico/schema';
import { EntityForm } from './entity-form.js';
import { listAddressOf, type FormPreset } from './entity-routes.js';
import { useEntityFormTitle } from './entity-title.js';
import { PageHeading } from '../../shell/page-heading.js';

/**
 * The add/edit page of an entity on its own sub-route (`/add`, `/edit?id=`, `/pptpadd`…), and
 * a singleton's settings page; saving or cancelling returns to the list.
 */
export default function EntityFormPage({ entity, mode, preset }: { entity: AnyEntity; mode: 'add' | 'edit'; preset?: FormPreset | undefined }) {
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const listAddress = listAddressOf(entity, location.pathname);
  const title = useEntityFormTitle(entity, mode, preset);
  const back = () => navigate(listAddress);
  // A singleton stays on its page after saving: it is its own list.
  const saved = entity.kind === 'singleton' ? () => undefined : back;
  return (
    <Stack maw={720}>
      <PageHeading title={title} />
      <Paper withBorder p="lg" radius="md">
        <EntityForm entity={entity} mode={mode} id={params.get('id')} preset={preset} onSaved={saved} onCancel={back} />
      </Paper>
    </Stack>
  );
}
