import type { NetworkPlan } from './network-plan.js';
import { device } from './network-syntax.js';

/**
 * Kernel settings (sysctl.d syntax). Forwarding on; reverse-path filtering strict on LAN-side
 * devices (no spoofed sources) and loose on WANs, where multi-WAN makes replies arrive on a
 * link other than the one the default route names; `arp_filter` so each WAN answers ARP only
 * for its own addresses. Per-device keys use the slash form, which allows dots in names
 * (`eth1.35`).
 */
export function renderSysctl(plan: NetworkPlan): string {
  const lines = [
    '# Portico kernel network settings. Generated; changes are overwritten.',
    'net.ipv4.ip_forward = 1',
    'net.ipv4.conf.all.rp_filter = 0',
    'net.ipv4.conf.default.rp_filter = 1',
    'net.ipv4.conf.all.arp_filter = 1',
    // A WAN whose link drops stops carrying its routes at once: multi-WAN fails over on carrier
    // loss without waiting for a probe.
    'net.ipv4.conf.all.ignore_routes_with_linkdown = 1',
    'net.ipv4.conf.default.ignore_routes_with_linkdown = 1',
  ];
  if (plan.ipv6) lines.push('net.ipv6.conf.all.forwarding = 1');
  const key = (dev: string, family: 'ipv4' | 'ipv6', name: string) => `net/${family}/conf/${device(dev)}/${name}`;
  for (const lan of plan.lans) lines.push(`${key(lan.l3, 'ipv4', 'rp_filter')} = 1`);
  for (const sub of plan.subInterfaces) lines.push(`${key(sub.device, 'ipv4', 'rp_filter')} = 1`);
  for (const wan of plan.wans) {
    // A PPP device exists only once its client has dialled; its settings come from defaults.
    if (wan.row.proto === 'pppoe') continue;
    lines.push(`${key(wan.l3, 'ipv4', 'rp_filter')} = 2`);
    // With forwarding on, router advertisements are taken only with accept_ra = 2.
    if (wan.row.ipv6 === 'slaac' || wan.row.ipv6 === 'dhcpv6') lines.push(`${key(wan.l3, 'ipv6', 'accept_ra')} = 2`);
  }
  return `${lines.join('\n')}\n`;
}

const SYSCTL_LINE = /^(?:[a-z0-9_]+(?:\.[a-z0-9_]+)+|net\/ipv[46]\/conf\/[A-Za-z0-9][A-Za-z0-9._-]{0,14}\/[a-z0-9_]+) = -?\d+$/;

/** Syntax check of a rendered sysctl file: comments or `key = integer` lines only. */
export function checkSysctl(content: string): string[] {
  const problems: string[] = [];
  const lines = content.split('\n');
  if (lines.pop() !== '') problems.push('file does not end with a newline');
  lines.forEach((line, index) => {
    if (line === '' || (line.startsWith('#') && /^[\x20-\x7e]*$/.test(line))) return;
    if (!SYSCTL_LINE.test(line)) problems.push(`line ${index + 1}: not a key = integer line`);
  });
  return problems;
}
