import { intToIpv4, parsePeerSubnets, type VpnClient } from '@portico/schema';
import { assertInert } from '../../engine/engine-types.js';
import { NETWORK_FILES } from './network-config.js';
import type { NetworkPlan } from './network-plan.js';
import { hostToken } from './network-vpn-pppd.js';
import { cidr4, integer, RenderValueError } from './network-syntax.js';
import { parseStrongswanSettings } from './network-ike.js';

/**
 * IPsec clients as strongSwan swanctl.conf (swanctl.conf(5)): one connection per client, a
 * child SA from the LAN networks to the peer's subnets, pre-shared key authentication. The
 * keys live in a separate 0600 file the connections file includes, each written `0x<hex>` (a
 * form swanctl decodes itself), so no character of a key is ever read as syntax.
 *
 * strongSwan's settings syntax: `name {` opens a section, `}` closes it, `key = value` runs to
 * the end of the line and `#` starts a comment. Every value rendered here is a plain token
 * (names, addresses, identities, hex), never quoted, checked by checkSwanctl.
 *
 * Connections never start by themselves (`start_action = none`): the VPN runtime initiates them.
 */

const HEADER = '# Portico IPsec clients. Generated; changes are overwritten.';

/**
 * A client's connection (and child SA) name on charon: `vpnc-<name>`. charon is shared with the
 * IPsec server, whose peer names never hold a hyphen, so no client's sections ever merge with a
 * peer's of the same name.
 */
export function ipsecConnectionName(value: string): string {
  assertInert(value, 'connection name');
  if (!/^[a-z][a-z0-9]{0,9}$/.test(value)) throw new RenderValueError(`connection name ${JSON.stringify(value)} cannot be rendered`);
  return `${CLIENT_PREFIX}${value}`;
}

const CLIENT_PREFIX = 'vpnc-';

/** Whether a connection (or IKE SA) name on the shared charon is one of the network's clients. */
export function isIpsecClientConnection(name: string): boolean {
  return name.startsWith(CLIENT_PREFIX);
}

/** An IKE identity: address, FQDN, user@fqdn or key id characters only. */
function identity(value: string): string {
  assertInert(value, 'IPsec identity');
  if (!/^[A-Za-z0-9@._:][A-Za-z0-9@._:-]{0,63}$/.test(value)) throw new RenderValueError(`IPsec identity ${JSON.stringify(value)} cannot be rendered`);
  return value;
}

function hexSecret(value: string): string {
  assertInert(value, 'pre-shared key');
  if (value === '') throw new RenderValueError('an empty pre-shared key cannot be rendered');
  return `0x${Buffer.from(value, 'utf8').toString('hex')}`;
}

function block(lines: string[], depth: number, name: string, body: (inner: string[]) => void): void {
  const indent = '\t'.repeat(depth);
  lines.push(`${indent}${name} {`);
  const inner: string[] = [];
  body(inner);
  lines.push(...inner.map((line) => `\t${line}`));
  lines.push(`${indent}}`);
}

export function ipsecClients(plan: NetworkPlan): VpnClient[] {
  return plan.config.vpnClients.filter((client) => client.enabled && client.type === 'ipsec');
}

/** Where the connections file lives and the secrets file it includes (the linux driver's by default). */
export interface SwanctlPaths {
  connections: string;
  secrets: string;
  /** How the connections file names the secrets file: relative (beside it) or absolute. */
  include?: string;
}

// Relative: libstrongswan resolves it beside the including file, wherever the system root is.
const LINUX_PATHS: SwanctlPaths = { connections: NETWORK_FILES.swanctl, secrets: NETWORK_FILES.swanctlSecrets, include: 'clients-secrets.conf' };

export function renderSwanctlConnections(plan: NetworkPlan, paths: SwanctlPaths = LINUX_PATHS): string {
  const lines = [HEADER, `# Loaded with every other IPsec connection of the device by one swanctl --load-all; keys in ${paths.secrets}`];
  // The gateway's own networks are what the peer reaches through the tunnel.
  const localTs = plan.lanSides.map((side) => cidr4(`${intToIpv4(side.address.first)}/${integer(side.address.prefix, 0, 32, 'prefix')}`));
  lines.push('connections {');
  for (const client of ipsecClients(plan)) {
    const name = ipsecConnectionName(client.name);
    const peers = parsePeerSubnets(client.peer_subnets);
    if (!peers) throw new RenderValueError(`peer subnets of ${name} cannot be rendered`);
    const inner: string[] = [];
    block(inner, 0, name, (conn) => {
      conn.push(`version = ${client.ike === 'ikev1' ? 1 : 2}`);
      if (client.ike === 'ikev1' && client.ipsec_mode === 'aggressive') conn.push('aggressive = yes');
      conn.push(`remote_addrs = ${hostToken(client.server)}`);
      conn.push('proposals = default');
      conn.push('dpd_delay = 30s');
      block(conn, 0, 'local', (local) => {
        local.push('auth = psk');
        if (client.local_id) local.push(`id = ${identity(client.local_id)}`);
      });
      block(conn, 0, 'remote', (remote) => {
        remote.push('auth = psk');
        if (client.remote_id) remote.push(`id = ${identity(client.remote_id)}`);
      });
      block(conn, 0, 'children', (children) => {
        block(children, 0, name, (child) => {
          if (localTs.length) child.push(`local_ts = ${localTs.join(',')}`);
          child.push(`remote_ts = ${peers.map(cidr4).join(',')}`);
          child.push('esp_proposals = default');
          child.push('start_action = none');
          child.push('dpd_action = restart');
          child.push('close_action = none');
        });
      });
    });
    lines.push(...inner.map((line) => `\t${line}`));
  }
  lines.push('}');
  lines.push(`include ${paths.include ?? paths.secrets}`);
  return `${lines.join('\n')}\n`;
}

export function renderSwanctlSecrets(plan: NetworkPlan): string {
  const lines = [HEADER, '# Pre-shared keys, hex-encoded.', 'secrets {'];
  for (const client of ipsecClients(plan)) {
    // The stored row always has the key; the write path refuses an IPsec client without one.
    if (!client.psk) continue;
    const inner: string[] = [];
    block(inner, 0, `ike-${ipsecConnectionName(client.name)}`, (secret) => {
      if (client.local_id) secret.push(`id-local = ${identity(client.local_id)}`);
      // Without a configured identity the peer is known by its address or name.
      secret.push(`id-remote = ${client.remote_id ? identity(client.remote_id) : hostToken(client.server)}`);
      secret.push(`secret = ${hexSecret(client.psk!)}`);
    });
    lines.push(...inner.map((line) => `\t${line}`));
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** Values as the renderers write them: plain tokens. */
const PLAIN_VALUE = /^[A-Za-z0-9._:/@,%-]+$/;
const INCLUDE_PATH = /^(?:\/[A-Za-z0-9._/-]+|[a-z0-9-]+\.conf)$/;

/**
 * Strict structural check of a rendered swanctl.conf file (strongSwan has no offline parser):
 * tab indentation that follows the nesting, sections with plain names, `key = value` settings
 * with plain-token values, `include` of an absolute path or a file beside it at the top level only, balanced
 * braces, top-level sections `connections` and `secrets` only (strongswan.conf fragments
 * share the syntax: `topLevel` names theirs), and secrets in hex. Returns the problems, one
 * per line; empty when the file is fine.
 */
export function checkSwanctl(content: string, topLevel: readonly string[] = ['connections', 'secrets']): string[] {
  const problems: string[] = [];
  const path: string[] = [];
  for (const line of parseStrongswanSettings(content, problems)) {
    if (line.kind === 'open') {
      if (!path.length && !topLevel.includes(line.name!)) problems.push(`${line.at}: unknown top-level section ${line.name}`);
      path.push(line.name!);
    } else if (line.kind === 'close') path.pop();
    else if (line.kind === 'include') {
      if (path.length) problems.push(`${line.at}: include inside a section`);
      if (!INCLUDE_PATH.test(line.value!)) problems.push(`${line.at}: include of neither an absolute path nor a file beside this one`);
      if (line.value!.split('/').includes('..')) problems.push(`${line.at}: include path leaves its folder`);
    } else if (!path.length) problems.push(`${line.at}: setting outside a section`);
    else if (!PLAIN_VALUE.test(line.value!)) problems.push(`${line.at}: value of ${line.key} is not a plain token`);
    else if (path[0] === 'secrets' && line.key === 'secret' && !/^0x(?:[0-9a-f]{2})+$/.test(line.value!)) problems.push(`${line.at}: secret is not hex`);
  }
  return problems;
}
