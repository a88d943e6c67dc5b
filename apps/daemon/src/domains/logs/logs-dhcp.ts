import { contribute, type Contribution } from '../../config/domain-module.js';
import type { Settings } from '../../settings.js';
import { RULESET_PARTS } from '../network/network-public.js';
import { DHCP_LOG_FILE } from './logs-service.js';

/**
 * The security log is dnsmasq's DHCP log: the network domain renders dnsmasq, and this
 * domain adds `log-dhcp` (every DHCP exchange) and `log-facility` (its own file, which
 * logs-service.ts keeps bounded) through the ruleset parts' dnsmasq lines.
 */
export function dhcpLogContributions(settings: Settings): Contribution[] {
  // The same root the network domain writes dnsmasq's other paths under.
  const root = settings.systemRoot === '/' ? '' : settings.systemRoot.replace(/\/+$/, '');
  return [
    contribute(RULESET_PARTS, {
      entities: [],
      part: () => ({ name: 'DHCP log', dnsmasq: ['log-dhcp', `log-facility=${root}${DHCP_LOG_FILE}`] }),
    }),
  ];
}
