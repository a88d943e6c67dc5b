import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

type LazyPage = LazyExoticComponent<ComponentType>;

/** Hand-written Security pages of the behaviour audit and the speed test, by full path. */
export const AUDIT_PAGES: Readonly<Record<string, LazyPage>> = {
  '/security/behavioraudit': lazy(() => import('./audit-page.js')),
  '/security/behavioraudit/urlexport': lazy(() => import('./audit-url-export-page.js')),
  '/security/behavioraudit/ipexport': lazy(() => import('./audit-ip-export-page.js')),
  '/security/behavioraudit/config': lazy(() => import('./audit-config-page.js')),
  '/security/speedtest': lazy(() => import('./speed-test-page.js')),
};
