import type { RenderedFile } from '../../engine/engine-types.js';
import { NETWORK_FILES } from './network-config.js';
import type { NetworkPlan, WanPlan } from './network-plan.js';
import { device, integer } from './network-syntax.js';
import { accountToken, renderPppdOptions, renderPppSecret, type PppdLine } from './network-vpn-pppd.js';

/**
 * PPPoE WANs for the linux driver: a pppd options file per WAN (`wan<n>.options`, n its WAN
 * index) and its 0600 secret file. pppd runs the PPPoE plugin on the WAN's link (`nic-<link>`,
 * the tagged VLAN when there is one) and names the PPP device `ppp-<name>`, the l3 device
 * every other file uses.
 *
 * Routes follow the plan: the default route goes into the main table with the WAN's metric
 * (`defaultroute-metric`), like a DHCP WAN's; with multi-WAN, the per-WAN table route and
 * source rule are added when the link is up: the dialler starts pppd with its link hook
 * (`ip-up-script`, `ip-down-script`, network-wan-ppp.ts), which records the session under the
 * WAN's `ipparam` for the daemon to apply. DNS servers the ISP sends are requested only when
 * none are configured; the daemon puts them into the WAN resolver file dnsmasq reads.
 */

const PPP_MIN_MRU = 128;

export function pppoeWans(plan: NetworkPlan): WanPlan[] {
  return plan.wans.filter((wan) => wan.row.proto === 'pppoe');
}

export function pppoeSlot(wan: WanPlan): string {
  return `wan${integer(wan.index, 1, 99, 'WAN index')}`;
}

export function renderPppoeOptions(plan: NetworkPlan, wan: WanPlan): string {
  const row = wan.row;
  const name = device(wan.name);
  const slot = pppoeSlot(wan);
  const lines: PppdLine[] = [
    ['plugin', 'pppoe.so'],
    [`nic-${device(wan.link)}`],
    ['user', accountToken(row.pppoe_username)],
    ['ifname', device(wan.l3)],
    ['linkname', name],
    ['ipparam', name],
    ['noauth'],
    ['hide-password'],
    ['persist'],
    ['maxfail', '0'],
    ['holdoff', '5'],
    ['lcp-echo-interval', '10'],
    ['lcp-echo-failure', '3'],
    // pppd refuses an MTU or MRU under 128 (its MINMRU); a smaller setting is raised to it.
    ['mtu', integer(Math.max(row.mtu, PPP_MIN_MRU), PPP_MIN_MRU, 1500, 'MTU')],
    ['mru', integer(Math.max(row.mru, PPP_MIN_MRU), PPP_MIN_MRU, 1500, 'MRU')],
    ['noipdefault'],
    ['defaultroute'],
    ['defaultroute-metric', integer(wan.metric, 0, 9999, 'metric')],
  ];
  if (row.dns.length === 0) lines.push(['usepeerdns']);
  lines.push([row.ipv6 === 'off' ? 'noipv6' : '+ipv6']);
  const comment = [
    'Portico PPPoE WAN. Generated; changes are overwritten.',
    `WAN ${name}; the dialler hands pppd the password from ${NETWORK_FILES.pppDir}/${slot}.secret.`,
  ];
  if (plan.multiWan) comment.push(`Multi-WAN: routing table ${integer(wan.table, 1, 252, 'routing table')} and source rule, set by the link hook on link up.`);
  if (row.dns.length === 0) comment.push(`DNS servers from the ISP go to ${NETWORK_FILES.wanResolv}.`);
  return renderPppdOptions(comment, lines);
}

export function renderPppoeFiles(plan: NetworkPlan): RenderedFile[] {
  const files: RenderedFile[] = [];
  for (const wan of pppoeWans(plan)) {
    const slot = pppoeSlot(wan);
    files.push({ target: `${NETWORK_FILES.pppDir}/${slot}.options`, content: renderPppoeOptions(plan, wan), check: 'pppd' });
    // The stored row always has the password; the write path refuses a PPPoE WAN without one.
    if (wan.row.pppoe_password) {
      files.push({
        target: `${NETWORK_FILES.pppDir}/${slot}.secret`,
        content: renderPppSecret(`Password of PPPoE WAN ${device(wan.name)}.`, wan.row.pppoe_password),
        check: 'ppp-secret',
        mode: 0o600,
      });
    }
  }
  return files;
}
