import { defineDomain } from '../../config/domain-module.js';
import { registerStatusRoutes } from './status-routes.js';

/** Live reads: dashboard, system status pages. */
export const statusModule = defineDomain({
  name: 'status',
  // The status pages, and the live halves of configuration pages (leases, ARP, routes).
  pages: ['dashboard', 'monitoring', 'linemonitoring', 'inneruser', 'authuserinfo', 'dhcplease', 'dhcpserver', 'arpinfo', 'arpbind', 'systemroute', 'staticroute', 'interface', 'systemmaintain'],
  register: registerStatusRoutes,
});
