import { netParam, type AnyEntity, type NetParam } from '@portico/schema';
import { singletonRecord } from '../../config/config-domains.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { singletonDefaults } from '../../config/entity-routes.js';
import { integer } from '../network/network-public.js';

/**
 * Network parameters as a sysctl.d file. Every key is per network namespace, so on a device
 * and in the lab's gateway namespace alike the values apply where the daemon's traffic runs.
 * (Connection-tracking timeouts, spec §9, are the firewall domain's file.)
 */
export const NETPARAM_FILE = '/etc/sysctl.d/60-portico-netparam.conf';

export function savedNetParam(snapshot: ConfigSnapshot): NetParam | undefined {
  const stored = singletonRecord(snapshot, netParam.name);
  if (!stored) return undefined;
  return netParam.schema.parse({ ...singletonDefaults(netParam as unknown as AnyEntity), ...stored }) as NetParam;
}

const flag = (value: boolean) => (value ? '1' : '0');

export function renderNetParam(p: NetParam): string {
  const lines = [
    '# Portico network parameters. Generated; changes are overwritten.',
    `net.ipv4.tcp_syncookies = ${flag(p.tcp_syncookies)}`,
    `net.ipv4.tcp_fin_timeout = ${integer(p.tcp_fin_timeout, 1, 600, 'tcp_fin_timeout')}`,
    `net.ipv4.tcp_keepalive_time = ${integer(p.tcp_keepalive_time, 10, 86_400, 'tcp_keepalive_time')}`,
    `net.ipv4.tcp_keepalive_intvl = ${integer(p.tcp_keepalive_intvl, 1, 3600, 'tcp_keepalive_intvl')}`,
    `net.ipv4.tcp_keepalive_probes = ${integer(p.tcp_keepalive_probes, 1, 64, 'tcp_keepalive_probes')}`,
    `net.ipv4.tcp_max_syn_backlog = ${integer(p.tcp_max_syn_backlog, 64, 1_048_576, 'tcp_max_syn_backlog')}`,
    `net.ipv4.ip_default_ttl = ${integer(p.ip_default_ttl, 1, 255, 'ip_default_ttl')}`,
    `net.ipv4.icmp_echo_ignore_broadcasts = ${flag(p.icmp_echo_ignore_broadcasts)}`,
  ];
  return `${lines.join('\n')}\n`;
}
