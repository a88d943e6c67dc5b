/**
 * Pages of the spec's route map (§2) that this build has no screen for yet: they show the
 * "not available in this build" page, never an empty form pretending to work. Data, so the
 * route-table test and the browser walk of every page tell a missing screen (a defect) from a
 * declared one. A sub-route of a page listed here is not built either.
 */
export const UNBUILT_PAGES: readonly string[] = [
  '/cloud/cloud',
  '/cloud/sdlan',
  '/cloud/vendor999',
  '/enterprisestorage/disklist',
  '/enterprisestorage/diskstatus',
  '/enterprisestorage/storeadvanced',
  '/enterprisestorage/allocation',
  '/enterprisestorage/enterprisemgr',
  '/enterprisestorage/sharedfiles',
  '/enterprisestorage/fileservice',
  '/enterprisestorage/usergrouping',
  '/enterprisestorage/backup',
  '/appcenter/upnp',
  '/appcenter/ddns',
  '/appcenter/wakeonlan',
  '/appcenter/switches',
  '/appcenter/onvif',
  '/appcenter/phtunnel',
];

const unbuilt = new Set(UNBUILT_PAGES);

/** Whether a routed path (a page or one of its sub-routes) is declared not built. */
export function isUnbuilt(path: string): boolean {
  if (unbuilt.has(path)) return true;
  const page = path.slice(0, path.lastIndexOf('/'));
  return page !== '' && unbuilt.has(page);
}
