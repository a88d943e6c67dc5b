import { defineDomain } from '../../config/domain-module.js';
import { factoryPortsOf, seedFactoryNetwork } from '../../config/factory-defaults.js';
import { networkBindings, networkDomain } from './network-domain.js';
import { networkLinuxActivation, networkOpenwrtActivation } from './network-activation.js';
import { NETWORK_FORMATS } from './network-formats.js';
import { registerReconnectRoutes } from './network-reconnect-routes.js';
import { RULESET_PARTS } from './network-ruleset-parts.js';

/**
 * The Network section: interfaces, DHCP, routes, ARP, VLAN, multi-WAN, IPTV, VPN clients. It
 * renders the one nftables ruleset, which the domains after it fill through RULESET_PARTS.
 */
export const networkModule = defineDomain({
  name: 'network',
  pages: ['interface', 'vpnclient'],
  formats: NETWORK_FORMATS,
  configDomains: ({ settings, contributions }) => [networkDomain(settings, contributions(RULESET_PARTS))],
  activation: { linux: networkLinuxActivation, openwrt: networkOpenwrtActivation },
  bindings: (ctx) => networkBindings(ctx.db),
  seed: (ctx) => void seedFactoryNetwork(ctx.db, factoryPortsOf(ctx.settings), ctx.now),
  register: (app, ctx) => registerReconnectRoutes(app, ctx),
});
