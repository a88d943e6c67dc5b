import { defineDomain } from '../../config/domain-module.js';
import { factoryPortsOf, seedFactoryNetwork } from '../../config/factory-defaults.js';
import { networkBindings, networkDomain } from './network-domain.js';
import { networkLinuxActivation, networkOpenwrtActivation } from './network-activation.js';
import { NETWORK_FORMATS } from './network-formats.js';
import { registerReconnectRoutes } from './network-reconnect-routes.js';
import { LinkLog } from './network-link-log.js';
import { NETWORK_FILES } from './network-config.js';
import { RULESET_PARTS } from './network-ruleset-parts.js';
import { ikeDomain, IKE_USERS } from './network-ike.js';

/**
 * The Network section: interfaces, DHCP, routes, ARP, VLAN, multi-WAN, IPTV, VPN clients. It
 * renders the one nftables ruleset, which the domains after it fill through RULESET_PARTS, and
 * on the linux driver runs the one IKE daemon, which IPsec users share through IKE_USERS.
 */
export const networkModule = defineDomain({
  name: 'network',
  pages: ['interface', 'vpnclient'],
  formats: NETWORK_FORMATS,
  configDomains: ({ settings, contributions }) => [
    networkDomain(settings, contributions(RULESET_PARTS)),
    // OpenWrt's charon is the swanctl package's: its users' fragments sit in /etc/swanctl/conf.d.
    ...(settings.driver === 'openwrt' ? [] : [ikeDomain(settings.systemRoot, contributions(IKE_USERS))]),
  ],
  activation: { linux: networkLinuxActivation, openwrt: networkOpenwrtActivation },
  bindings: (ctx) => networkBindings(ctx.db),
  seed: (ctx) => void seedFactoryNetwork(ctx.db, factoryPortsOf(ctx.settings), ctx.now),
  register: (app, ctx) => {
    registerReconnectRoutes(app, ctx);
    // The IPsec log (Logs, sysconf/log name ipsec) shows charon's file as this domain renders it.
    ctx.logs.addFile('ipsec', NETWORK_FILES.ipsecLog);
    const links = new LinkLog(() => ctx.live.netif(), ctx.logs, (error) => app.log.warn({ err: error }, 'port log: links not read'));
    links.start();
    return links;
  },
});
