import { useCallback, useEffect, useMemo, useState } from 'react';
import { Button, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Navigate, Route, Routes } from 'react-router';
import type { MenuSection } from '@portico/schema';
import { NotFoundPage } from '../pages/not-found/not-found-page.js';
import { CHANGE_PASSWORD_PATH, HOME_PATH, LOGIN_PATH } from '../routes/navigation.js';
import { PAGE_CATALOGUE } from '../routes/page-registry.js';
import { buildRouteTable, homePath } from '../routes/route-table.js';
import { useMenuStore } from '../state/menu-store.js';
import { loadMenu, loadSession } from '../state/session-loader.js';
import { useSessionStore } from '../state/session-store.js';
import { useAllStrings } from '../i18n/console-i18n.js';
import { ConsoleShell } from './console-shell.js';
import { PageLoader } from './page-loader.js';
import { RoutedPage } from './routed-page.js';

/**
 * Everything behind the sign-in: the session is checked (GET /api/islogin), a forced
 * password change goes first, then the menu is read and every page and sub-route it lists
 * is routed. Paths outside it (unknown, or switched off on this device) are not found.
 */
export function AdminArea() {
  // Every section's strings, fetched after the first paint (main.tsx): usually there already.
  useAllStrings();
  const status = useSessionStore((s) => s.status);
  const mustChangePassword = useSessionStore((s) => s.mustChangePassword);
  const menuStatus = useMenuStore((s) => s.status);
  const sections = useMenuStore((s) => s.sections);
  const [sessionFailed, setSessionFailed] = useState(false);

  const checkSession = useCallback(() => {
    setSessionFailed(false);
    void loadSession().then((result) => setSessionFailed(result === 'failed'));
  }, []);

  useEffect(() => {
    if (status === 'unknown') checkSession();
  }, [status, checkSession]);

  useEffect(() => {
    if (status === 'signedIn' && !mustChangePassword && menuStatus === 'idle') void loadMenu();
  }, [status, mustChangePassword, menuStatus]);

  if (status === 'signedOut') return <Navigate to={LOGIN_PATH} replace />;
  if (status === 'signedIn' && mustChangePassword) return <Navigate to={CHANGE_PASSWORD_PATH} replace />;
  if (sessionFailed) return <LoadFailed onRetry={checkSession} />;
  if (menuStatus === 'failed') return <LoadFailed onRetry={() => void loadMenu()} />;
  if (status !== 'signedIn' || menuStatus !== 'ready') return <PageLoader fullScreen />;
  return (
    <ConsoleShell menu={sections}>
      <AdminRoutes menu={sections} />
    </ConsoleShell>
  );
}

function AdminRoutes({ menu }: { menu: readonly MenuSection[] }) {
  const entries = useMemo(() => buildRouteTable(menu, PAGE_CATALOGUE), [menu]);
  const home = homePath(menu, HOME_PATH);
  return (
    <Routes>
      <Route path="/" element={home ? <Navigate to={home} replace /> : <NotFoundPage />} />
      {entries.map((entry) => (
        <Route key={entry.path} path={entry.path} element={<RoutedPage entry={entry} />} />
      ))}
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}

function LoadFailed({ onRetry }: { onRetry: () => void }) {
  const { t } = useTranslation();
  return (
    <Stack align="center" justify="center" h="100vh" gap="md" data-testid="load-failed">
      <Text>{t('common.requestFailed')}</Text>
      <Button variant="light" onClick={onRetry}>
        {t('common.retry')}
      </Button>
    </Stack>
  );
}
