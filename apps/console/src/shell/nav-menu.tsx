import { useEffect, useMemo, useState } from 'react';
import { NavLink } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import type { MenuSection } from '@portico/schema';
import { activeItemPath, visibleSections } from '../routes/route-table.js';

interface Props {
  menu: readonly MenuSection[];
  /** Called after an entry is picked (closes the menu on small screens). */
  onNavigate?: () => void;
}

/** Sections and their pages as the server listed them; the current page is highlighted. */
export function NavMenu({ menu, onNavigate }: Props) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const sections = useMemo(() => visibleSections(menu), [menu]);
  const activePath = activeItemPath(menu, pathname);
  const activeSection = sections.find((s) => s.children.some((c) => c.path === activePath))?.path;
  const [opened, setOpened] = useState<ReadonlySet<string>>(() => new Set(activeSection ? [activeSection] : []));

  // The section of the page being shown opens by itself (links, reloads, redirects).
  useEffect(() => {
    if (activeSection) setOpened((current) => (current.has(activeSection) ? current : new Set([...current, activeSection])));
  }, [activeSection]);

  const toggle = (path: string) =>
    setOpened((current) => {
      const next = new Set(current);
      if (next.has(path)) next.delete(path);
      else next.add(path);
      return next;
    });

  return (
    <nav aria-label={t('common.navigation')}>
      {sections.map((section) => (
        <NavLink
          key={section.path}
          label={t(section.label)}
          data-testid={`nav-section-${section.module}`}
          opened={opened.has(section.path)}
          onChange={() => toggle(section.path)}
          active={section.path === activeSection}
          variant="subtle"
          childrenOffset="md"
        >
          {section.children.map((item) => (
            <NavLink
              key={item.path}
              component={Link}
              to={item.path}
              label={t(item.label)}
              data-testid={`nav-item-${item.module}`}
              active={item.path === activePath}
              aria-current={item.path === activePath ? 'page' : undefined}
              onClick={onNavigate}
            />
          ))}
        </NavLink>
      ))}
    </nav>
  );
}
