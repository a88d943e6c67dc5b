import type { FirewallSessionLimit } from '@portico/schema';
import type { Settings } from '../../settings.js';
import type { ConfigDomain } from '../../config/config-types.js';
import { collectionRows } from '../../config/config-domains.js';
import { integer, noInterface } from '../network/network-public.js';
import { firewallConfigOf } from './firewall-config.js';

/**
 * Connection-tracking timeouts (spec §9) as a sysctl file: the kernel's own per-state
 * timeouts, so every connection gets them without a rule. `generic` is the timeout of
 * protocols conntrack has no state machine for; UDP `assured` is a stream that saw replies.
 */
export const CONNTRACK_FILES = {
  linux: '/etc/portico/conntrack.conf',
  openwrt: '/etc/sysctl.d/12-portico-conntrack.conf',
} as const;

const KEYS: ReadonlyArray<[keyof FirewallSessionLimit, string]> = [
  ['tcp_generic', 'nf_conntrack_generic_timeout'],
  ['tcp_established', 'nf_conntrack_tcp_timeout_established'],
  ['tcp_syn_sent', 'nf_conntrack_tcp_timeout_syn_sent'],
  ['tcp_syn_recv', 'nf_conntrack_tcp_timeout_syn_recv'],
  ['tcp_fin_wait', 'nf_conntrack_tcp_timeout_fin_wait'],
  ['tcp_time_wait', 'nf_conntrack_tcp_timeout_time_wait'],
  ['tcp_close', 'nf_conntrack_tcp_timeout_close'],
  ['tcp_close_wait', 'nf_conntrack_tcp_timeout_close_wait'],
  ['tcp_last_ack', 'nf_conntrack_tcp_timeout_last_ack'],
  ['udp_unreplied', 'nf_conntrack_udp_timeout'],
  ['udp_assured', 'nf_conntrack_udp_timeout_stream'],
];

export function renderConntrackSysctl(limits: FirewallSessionLimit): string {
  const lines = ['# Portico connection-tracking timeouts (seconds). Generated; changes are overwritten.'];
  for (const [field, key] of KEYS) lines.push(`net.netfilter.${key} = ${integer(limits[field] as number, 1, 432_000, field)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The conntrack domain: applied after the network (whose ruleset loads conntrack, so the keys
 * exist). A device with no interface yet gets nothing, like the network itself.
 */
export function conntrackDomain(settings: { driver?: Settings['driver'] }): ConfigDomain {
  return {
    name: 'conntrack',
    entities: ['firewallSessionLimit'],
    keepInstalled: noInterface,
    render: (snapshot) => {
      if (collectionRows(snapshot, 'networkInterface').length === 0) return [];
      const target = settings.driver === 'openwrt' ? CONNTRACK_FILES.openwrt : CONNTRACK_FILES.linux;
      const content = renderConntrackSysctl(firewallConfigOf(snapshot).sessionLimit);
      return [{ domain: 'conntrack', files: [{ target, content, check: 'sysctl', mode: 0o644 }] }];
    },
  };
}
