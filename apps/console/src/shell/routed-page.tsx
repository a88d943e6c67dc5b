import { useTranslation } from 'react-i18next';
import { NotAvailablePage } from '../pages/not-available/not-available-page.js';
import { CurrentRouteContext } from '../routes/current-route.js';
import { pageComponent } from '../routes/page-registry.js';
import type { RouteEntry } from '../routes/route-table.js';
import { usePageTitle } from './page-title.js';

/**
 * One route of the table: its page (or the "not available" page) with the route made
 * current, so the page's heading and the browser tab read the menu label that leads to it.
 */
export function RoutedPage({ entry }: { entry: RouteEntry }) {
  const { t } = useTranslation();
  const title = t(entry.label);
  usePageTitle(title);
  const Page = pageComponent(entry.path, entry.page);
  // data-route says which route is on screen once its page has rendered (lazy pages keep the
  // previous one shown until their chunk is in).
  return (
    <CurrentRouteContext.Provider value={entry}>
      <div data-route={entry.path}>{Page ? <Page /> : <NotAvailablePage title={title} />}</div>
    </CurrentRouteContext.Provider>
  );
}
