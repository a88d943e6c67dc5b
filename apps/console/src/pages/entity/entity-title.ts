import { useTranslation } from 'react-i18next';
import type { AnyEntity } from '@portico/schema';
import { useCurrentRoute, useMenuTitle } from '../../routes/current-route.js';
import type { FormPreset } from './entity-routes.js';

/**
 * The title of an entity page is the label of what leads to it: the menu label on the menu's
 * own page (and on its add/edit sub-routes), the entity's title on a page reached by a link
 * of the list (`/hotspot/billingplan/advanced`). Without a route (tests) the entity's title.
 */
export function useEntityTitle(entity: AnyEntity): string {
  const { t } = useTranslation();
  const route = useCurrentRoute();
  const menuTitle = useMenuTitle();
  if (route && (route.path === route.menuPath || route.page.kind === 'entityForm')) return menuTitle;
  return t(`${entity.name}.title`);
}

/** A form's title: the page's for a singleton, `Add: …` / `Edit: …` for a row, with its kind. */
export function useEntityFormTitle(entity: AnyEntity, mode: 'add' | 'edit', preset?: FormPreset): string {
  const { t } = useTranslation();
  const base = useEntityTitle(entity);
  if (entity.kind === 'singleton') return base;
  const title = preset ? t('entity.kindTitle', { title: base, kind: t(`${entity.name}.option.${preset.field}.${preset.value}`) }) : base;
  return t(mode === 'add' ? 'entity.addTitle' : 'entity.editTitle', { title });
}
