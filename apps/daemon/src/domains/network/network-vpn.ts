import type { VpnClient } from '@portico/schema';
import type { RenderedFile } from '../../engine/engine-types.js';
import { assertInert } from '../../engine/engine-types.js';
import { NETWORK_FILES } from './network-config.js';
import type { NetworkPlan } from './network-plan.js';
import { device, RenderValueError } from './network-syntax.js';
import { accountToken, hostToken, pppdWord, renderPppdOptions, renderPppPasswordOptions, renderPppSecret, type PppdLine } from './network-vpn-pppd.js';
import { ipsecClients, renderSwanctlConnections, renderSwanctlSecrets } from './network-vpn-swanctl.js';

/**
 * VPN clients for the linux driver (spec §3, §5): their configuration files, rendered and
 * checked; the runtime that dials them (network-dialled-links.ts) is separate. IPsec goes to
 * strongSwan (swanctl.conf), L2TP to xl2tpd (a lac section) with pppd on top, PPTP to pppd with
 * the `pptp` program as its pty. Each PPP tunnel has an options file and a 0600 secret file,
 * named by its position among the PPP tunnels (`vpn1`, `vpn2`…) so the set of files does not
 * depend on any name; the device, link name and ipparam inside carry the client's name.
 *
 * The daemon starts a PPTP client's pppd itself and hands it the password on a descriptor, so
 * its secret file is the dialler's hex form. An L2TP client's pppd is started by xl2tpd, which
 * can pass it nothing but options (`pppoptfile`): its secret file is a pppd options file
 * holding the password, which the tunnel's options file includes with `file`. Both are 0600.
 *
 * OpenVPN clients are not rendered here.
 */

const HEADER = 'Portico VPN client. Generated; changes are overwritten.';

/** The enabled PPTP and L2TP clients, each with its file slot. */
export function pppTunnels(plan: NetworkPlan): Array<{ client: VpnClient; slot: string }> {
  return plan.config.vpnClients
    .filter((client) => client.enabled && (client.type === 'pptp' || client.type === 'l2tp'))
    .map((client, position) => ({ client, slot: `vpn${position + 1}` }));
}

export function pppOptionsPath(slot: string): string {
  return `${NETWORK_FILES.pppDir}/${slot}.options`;
}

export function pppSecretPath(slot: string): string {
  return `${NETWORK_FILES.pppDir}/${slot}.secret`;
}

export function tunnelName(value: string): string {
  assertInert(value, 'VPN client name');
  if (!/^[a-z][a-z0-9]{0,9}$/.test(value)) throw new RenderValueError(`VPN client name ${JSON.stringify(value)} cannot be rendered`);
  return value;
}

/** pppd options of a PPTP or L2TP tunnel. */
export function renderTunnelOptions(client: VpnClient, slot: string): string {
  const name = tunnelName(client.name);
  const lines: PppdLine[] = [];
  if (client.type === 'pptp') {
    // pppd runs the pty command through /bin/sh: the server is a host name or an address, a
    // token no shell or pppd reads as anything else.
    lines.push(['pty', pppdWord(`pptp ${hostToken(client.server)} --nolaunchpppd`)]);
  }
  lines.push(
    ['name', accountToken(client.username)],
    ['remotename', name],
    ['ifname', device(`vpn-${name}`)],
    ['linkname', name],
    ['ipparam', name],
    ['noauth'],
    ['hide-password'],
    ['noipdefault'],
    ['refuse-eap'],
    ['lcp-echo-interval', '20'],
    ['lcp-echo-failure', '3'],
  );
  if (client.type === 'pptp') lines.push(['require-mppe-128'], ['refuse-pap'], ['refuse-chap'], ['refuse-mschap'], ['nobsdcomp'], ['nodeflate']);
  else lines.push(['noccp'], ['mtu', '1410'], ['mru', '1410']);
  // All traffic through the tunnel: its default route beats every WAN's (metrics 10 and up).
  if (client.defaultroute) lines.push(['defaultroute'], ['defaultroute-metric', '1']);
  else lines.push(['nodefaultroute']);
  if (client.type === 'l2tp') lines.push(['file', pppSecretPath(slot)]);
  const password =
    client.type === 'l2tp'
      ? `xl2tpd starts pppd with this file; the password comes from ${pppSecretPath(slot)}.`
      : `the dialler hands pppd the password from ${pppSecretPath(slot)}.`;
  return renderPppdOptions([HEADER, `${client.type.toUpperCase()} client ${name}; ${password}`], lines);
}

/** xl2tpd's configuration: one lac section per L2TP client; none dials by itself. */
export function renderXl2tpd(plan: NetworkPlan): string {
  const lines = [`; ${HEADER}`, '; L2TP clients: xl2tpd -c <this file>; a tunnel starts on request only (autodial = no).'];
  for (const { client, slot } of pppTunnels(plan)) {
    if (client.type !== 'l2tp') continue;
    lines.push(
      '',
      `[lac ${tunnelName(client.name)}]`,
      `lns = ${hostToken(client.server)}`,
      `name = ${accountToken(client.username)}`,
      `pppoptfile = ${pppOptionsPath(slot)}`,
      'require authentication = no',
      'ppp debug = no',
      'length bit = yes',
      'redial = yes',
      'redial timeout = 15',
      'autodial = no',
    );
  }
  return `${lines.join('\n')}\n`;
}

const XL2TPD_KEYS = new Set(['lns', 'name', 'pppoptfile', 'require authentication', 'ppp debug', 'length bit', 'redial', 'redial timeout', 'autodial']);

/**
 * Structural check of a rendered xl2tpd.conf (xl2tpd has no dry run): `;` comments, `[lac
 * <name>]` sections with plain names, and known `key = value` settings whose values are plain
 * tokens (xl2tpd has no quoting: a value runs to the end of the line).
 */
export function checkXl2tpd(content: string): string[] {
  const problems: string[] = [];
  if (!content.endsWith('\n')) problems.push('file does not end with a newline');
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let inSection = false;
  const names = new Set<string>();
  lines.forEach((line, index) => {
    const at = `line ${index + 1}`;
    if (!/^[\x20-\x7e]*$/.test(line)) return problems.push(`${at}: not printable ASCII`);
    if (line === '' || line.startsWith('; ')) return undefined;
    const section = /^\[lac ([a-z][a-z0-9]{0,9})\]$/.exec(line);
    if (section) {
      if (names.has(section[1]!)) problems.push(`${at}: lac ${section[1]} twice`);
      names.add(section[1]!);
      inSection = true;
      return undefined;
    }
    const setting = /^([a-z][a-z ]*[a-z]) = ([A-Za-z0-9._:/@+-]+)$/.exec(line);
    if (!setting) return problems.push(`${at}: not a section or setting`);
    if (!inSection) return problems.push(`${at}: setting outside a section`);
    if (!XL2TPD_KEYS.has(setting[1]!)) return problems.push(`${at}: unknown setting ${setting[1]}`);
    return undefined;
  });
  return problems;
}

/** Every VPN client file, in the order a runtime would load them. */
export function renderVpnClientFiles(plan: NetworkPlan): RenderedFile[] {
  const files: RenderedFile[] = [];
  if (ipsecClients(plan).length) {
    files.push({ target: NETWORK_FILES.swanctl, content: renderSwanctlConnections(plan), check: 'swanctl' });
    files.push({ target: NETWORK_FILES.swanctlSecrets, content: renderSwanctlSecrets(plan), check: 'swanctl', mode: 0o600 });
  }
  const tunnels = pppTunnels(plan);
  if (tunnels.some(({ client }) => client.type === 'l2tp')) files.push({ target: NETWORK_FILES.xl2tpd, content: renderXl2tpd(plan), check: 'xl2tpd' });
  for (const { client, slot } of tunnels) {
    files.push({ target: pppOptionsPath(slot), content: renderTunnelOptions(client, slot), check: 'pppd' });
    // The stored row always has the password; the write path refuses a tunnel without one.
    if (!client.password) continue;
    const what = `Password of VPN client ${tunnelName(client.name)}.`;
    files.push(
      client.type === 'l2tp'
        ? { target: pppSecretPath(slot), content: renderPppPasswordOptions(what, client.password), check: 'ppp-password', mode: 0o600 }
        : { target: pppSecretPath(slot), content: renderPppSecret(what, client.password), check: 'ppp-secret', mode: 0o600 },
    );
  }
  return files;
}
