import { defineDomain } from '../../config/domain-module.js';
import { registerLicenseRoutes, type LicenseDeps } from './license-routes.js';

/** The device licence: activation, offline licence files, the lock and its warning. */
export const licenseModule = defineDomain({
  name: 'license',
  pages: ['dashboard', 'license'],
  register: (app, ctx, deps: LicenseDeps | undefined) => {
    registerLicenseRoutes(app, ctx, deps);
  },
});
