import { contribute, defineDomain } from '../../config/domain-module.js';
import { RULESET_PARTS } from '../network/network-public.js';
import { firewallBindings } from './firewall-bindings.js';
import { CONNTRACK_FILES, conntrackDomain } from './firewall-conntrack.js';
import { firewallContributor } from './firewall-contributor.js';

/**
 * The Firewall section: its rules are a part of the one ruleset; its connection-tracking
 * timeouts are a sysctl file of their own, applied after the network.
 */
export const firewallModule = defineDomain({
  name: 'firewall',
  contributions: () => [contribute(RULESET_PARTS, firewallContributor)],
  configDomains: ({ settings }) => [conntrackDomain(settings)],
  activation: {
    openwrt: () => ({
      reloadFor: (target) => (target === CONNTRACK_FILES.openwrt ? { argv: ['sysctl', '-p', target] } : undefined),
    }),
  },
  bindings: (ctx) => firewallBindings(ctx.db),
});
