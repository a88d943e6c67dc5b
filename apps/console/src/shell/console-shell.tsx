import { lazy, Suspense, type ReactNode } from 'react';
import { Anchor, AppShell, Burger, Group, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import type { MenuSection } from '@portico/schema';
import { HOME_PATH } from '../routes/navigation.js';
import { ApplyConfirmBanner } from './apply-confirm-bar.js';
import { NavMenu } from './nav-menu.js';
import { PageErrorBoundary } from './page-error-boundary.js';
import { PageLoader } from './page-loader.js';

const HeaderMenus = lazy(() => import('./header-menus.js'));

interface Props {
  menu: readonly MenuSection[];
  children: ReactNode;
}

/** Header (product, language, account), the server's menu, and the routed page. */
export function ConsoleShell({ menu, children }: Props) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const [navOpened, nav] = useDisclosure(false);

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 260, breakpoint: 'sm', collapsed: { mobile: !navOpened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={navOpened}
              onClick={nav.toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={t('common.toggleNavigation')}
            />
            <Anchor component={Link} to={HOME_PATH} fw={700} size="lg" c="inherit" underline="never" data-testid="product-name">
              {t('common.productName')}
            </Anchor>
            <Text size="sm" c="dimmed" visibleFrom="sm">
              {t('common.consoleName')}
            </Text>
          </Group>
          <Suspense fallback={null}>
            <HeaderMenus />
          </Suspense>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        <AppShell.Section grow className="console-nav-scroll">
          <NavMenu menu={menu} onNavigate={nav.close} />
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <ApplyConfirmBanner />
        <PageErrorBoundary resetKey={pathname}>
          <Suspense fallback={<PageLoader />}>{children}</Suspense>
        </PageErrorBoundary>
      </AppShell.Main>
    </AppShell>
  );
}
