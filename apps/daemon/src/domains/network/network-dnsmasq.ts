import { dhcpPool, intToIpv4 } from '@portico/schema';
import { assertInert } from '../../engine/engine-types.js';
import { NETWORK_FILES } from './network-config.js';
import type { NetworkPlan } from './network-plan.js';
import { device, hostLabel, identifier, integer, ipv4, mac, cidr6 } from './network-syntax.js';

/**
 * dnsmasq: the local resolver and the DHCP/DHCPv6 server of the LAN side. It binds to the
 * LAN-side devices only (`bind-dynamic` follows them as they come and go), forwards to the
 * WANs' DNS servers, each through its own WAN, and keeps leases under /var/lib/portico. Every
 * value is a validated address, MAC, device name or host label: none can hold a comma or a
 * line break, which are dnsmasq's separators.
 */
export function renderDnsmasq(plan: NetworkPlan, root = '', extra: readonly string[] = []): string {
  const lines = [
    '# Portico DNS and DHCP service. Generated; changes are overwritten.',
    'port=53',
    'bind-dynamic',
  ];
  for (const side of plan.lanSides) lines.push(`interface=${device(side.device)}`);
  lines.push('domain-needed', 'bogus-priv', 'no-hosts', 'cache-size=1000');

  const servers = new Set<string>();
  let learnt = false;
  for (const wan of plan.wans) {
    for (const server of wan.row.dns) servers.add(`server=${ipv4(server)}@${device(wan.l3)}`);
    if (wan.dynamic && wan.row.dns.length === 0) learnt = true;
  }
  // WANs that learn their DNS servers (DHCP, PPPoE) have their clients write them to one file.
  lines.push(learnt ? `resolv-file=${root}${NETWORK_FILES.wanResolv}` : 'no-resolv');
  lines.push(...servers);

  lines.push('dhcp-authoritative', `dhcp-leasefile=${root}${NETWORK_FILES.leases}`);
  let ra = false;
  for (const server of plan.config.dhcpServers) {
    if (!server.enabled) continue;
    const side = plan.lanSides.find((s) => s.name === server.interface);
    if (!side) continue;
    const pool = dhcpPool(server, side.address);
    if (!pool) continue;
    const tag = identifier(side.name);
    const lease = `${integer(server.lease_minutes, 2, 525_600, 'lease time')}m`;
    lines.push(`dhcp-range=set:${tag},${ipv4(intToIpv4(pool.first))},${ipv4(intToIpv4(Math.min(pool.last, side.address.last - 1)))},${ipv4(server.netmask)},${lease}`);
    lines.push(`dhcp-option=tag:${tag},option:router,${ipv4(server.gateway || side.address.address)}`);
    const dns = server.dns.length ? server.dns.map(ipv4) : [ipv4(side.address.address)];
    lines.push(`dhcp-option=tag:${tag},option:dns-server,${dns.join(',')}`);
    if (server.dhcpv6 !== 'off' && side.ipv6Prefix) {
      ra = true;
      const prefix = integer(Number(cidr6(side.ipv6Prefix).split('/')[1]), 1, 128, 'IPv6 prefix');
      const range = server.dhcpv6 === 'stateless' ? `::,constructor:${device(side.device)},ra-stateless` : `::1000,::ffff,constructor:${device(side.device)},${prefix}`;
      lines.push(`dhcp-range=set:${tag},${range},${lease}`);
    }
  }
  if (ra) lines.push('enable-ra');
  // Other features' lines (ruleset parts): each one line, never a line break.
  for (const line of extra) lines.push(assertInert(line, 'dnsmasq line'));
  for (const host of plan.config.dhcpStatic) {
    const name = host.hostname ? `,${hostLabel(host.hostname)}` : '';
    lines.push(`dhcp-host=${mac(host.mac)},${ipv4(host.ip)}${name}`);
  }
  return `${lines.join('\n')}\n`;
}
