import { isCidr4, isIp, parsePeerSubnets, type IpsecPeer, IPSEC_ID_PATTERN, IPSEC_PEER_NAME_PATTERN } from '@portico/schema';
import { assertInert } from '../../engine/engine-types.js';
import { parseStrongswanSettings, RenderValueError } from '../network/network-public.js';

/**
 * The IPsec server for strongSwan's charon, configured through swanctl (swanctl.conf(5)):
 * one connection per enabled peer, each with one child SA between the configured networks,
 * authenticated by pre-shared key. The keys live in a 0600 file the connections file includes
 * (a relative include: libstrongswan resolves it beside the including file), each written
 * `0x<hex>`, so no character of a key is ever read as syntax.
 *
 * strongSwan's settings syntax: `name {` opens a section, `}` closes it, `key = value` runs to
 * the end of the line, `#` starts a comment, and values may be quoted. Every value rendered
 * here is a plain token checked for its key, so nothing is ever quoted.
 */

/** The server's share of the one IKE daemon (network-ike.ts includes its connections file). */
export const IPSEC_FILES = {
  connections: '/etc/portico/ipsec-server/swanctl.conf',
  secrets: '/etc/portico/ipsec-server/secrets.conf',
} as const;

const SECRETS_INCLUDE = 'secrets.conf';
/** A file beside the including one, or one in swanctl's own folder; plain names (no `..`). */
const SECRETS_INCLUDE_PATH = /^(?:\/etc\/swanctl\/)?[a-z0-9-]+\.conf$/;
const HEADER = '# Portico IPsec server. Generated; changes are overwritten.';

/** The L2TP/IPsec server's share: one transport-mode connection for UDP 1701 with its key. */
export interface L2tpIpsecPart {
  psk: string;
}

export const L2TP_CONNECTION = 'l2tp_ipsec';

function peerName(value: string): string {
  assertInert(value, 'IPsec peer name');
  if (!IPSEC_PEER_NAME_PATTERN.test(value) || value === L2TP_CONNECTION) throw new RenderValueError(`IPsec peer name ${JSON.stringify(value)} cannot be rendered`);
  return value;
}

function identity(value: string): string {
  assertInert(value, 'IPsec identity');
  if (!IPSEC_ID_PATTERN.test(value)) throw new RenderValueError(`IPsec identity ${JSON.stringify(value)} cannot be rendered`);
  return value;
}

function address(value: string): string {
  assertInert(value, 'IPsec peer address');
  if (!isIp(value) && !/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*$/.test(value)) {
    throw new RenderValueError(`IPsec peer address ${JSON.stringify(value)} cannot be rendered`);
  }
  return value;
}

function subnets(value: string, what: string): string {
  assertInert(value, what);
  const list = parsePeerSubnets(value);
  if (!list) throw new RenderValueError(`${what} ${JSON.stringify(value)} cannot be rendered`);
  return list.join(',');
}

function hexSecret(value: string): string {
  assertInert(value, 'pre-shared key');
  if (value === '') throw new RenderValueError('an empty pre-shared key cannot be rendered');
  return `0x${Buffer.from(value, 'utf8').toString('hex')}`;
}

/** The peers charon serves: enabled ones with a key (a stored peer always has one). */
export function servedPeers(peers: readonly IpsecPeer[]): IpsecPeer[] {
  return peers.filter((peer) => peer.enabled && !!peer.psk);
}

/**
 * The identity a peer must prove: its configured remote ID, else its address (what charon
 * reads as the peer's identity when none is configured); a peer from any address has an ID.
 */
export function expectedRemoteId(peer: IpsecPeer): string {
  return peer.remote_id !== '' ? identity(peer.remote_id) : address(peer.remote_addr);
}

/**
 * swanctl.conf: one connection per peer, the L2TP/IPsec connection when given, the secrets
 * included: beside it by default, or (OpenWrt, whose swanctl loads every conf.d/*.conf) an
 * absolute path in swanctl's own folder, outside conf.d.
 */
export function renderSwanctlServer(peers: readonly IpsecPeer[], l2tp?: L2tpIpsecPart, secretsInclude: string = SECRETS_INCLUDE): string {
  const out = [HEADER, 'connections {'];
  for (const peer of servedPeers(peers)) {
    const name = peerName(peer.name);
    out.push(`\t${name} {`);
    out.push(`\t\tversion = ${peer.ike === 'ikev1' ? 1 : 2}`);
    if (peer.ike === 'ikev1' && peer.ipsec_mode === 'aggressive') out.push('\t\taggressive = yes');
    out.push('\t\tlocal_addrs = %any');
    out.push(`\t\tremote_addrs = ${peer.remote_addr === '' ? '%any' : address(peer.remote_addr)}`);
    out.push('\t\tproposals = default');
    out.push('\t\tdpd_delay = 30s');
    out.push('\t\tlocal {', '\t\t\tauth = psk');
    if (peer.local_id !== '') out.push(`\t\t\tid = ${identity(peer.local_id)}`);
    out.push('\t\t}', '\t\tremote {', '\t\t\tauth = psk', `\t\t\tid = ${expectedRemoteId(peer)}`, '\t\t}');
    out.push('\t\tchildren {', `\t\t\t${name} {`);
    out.push(`\t\t\t\tlocal_ts = ${subnets(peer.local_subnets, 'local subnets')}`);
    out.push(`\t\t\t\tremote_ts = ${subnets(peer.peer_subnets, 'peer subnets')}`);
    out.push('\t\t\t\tesp_proposals = default', '\t\t\t\tstart_action = none', '\t\t\t\tdpd_action = clear');
    out.push('\t\t\t}', '\t\t}', '\t}');
  }
  if (l2tp) {
    out.push(`\t${L2TP_CONNECTION} {`, '\t\tversion = 1', '\t\tlocal_addrs = %any', '\t\tremote_addrs = %any', '\t\tproposals = default');
    out.push('\t\tlocal {', '\t\t\tauth = psk', '\t\t}', '\t\tremote {', '\t\t\tauth = psk', '\t\t}');
    out.push('\t\tchildren {', `\t\t\t${L2TP_CONNECTION} {`, '\t\t\t\tmode = transport', '\t\t\t\tlocal_ts = dynamic[udp/1701]', '\t\t\t\tremote_ts = dynamic[udp]');
    out.push('\t\t\t\tesp_proposals = default', '\t\t\t\tstart_action = none', '\t\t\t\tdpd_action = clear', '\t\t\t}', '\t\t}', '\t}');
  }
  if (!SECRETS_INCLUDE_PATH.test(secretsInclude)) throw new RenderValueError(`include ${JSON.stringify(secretsInclude)} cannot be rendered`);
  out.push('}', `include ${secretsInclude}`);
  return `${out.join('\n')}\n`;
}

/** The secrets file (0600): one key per peer, bound to the identity it must prove. */
export function renderSwanctlSecrets(peers: readonly IpsecPeer[], l2tp?: L2tpIpsecPart): string {
  const out = [HEADER, '# Pre-shared keys, hex-encoded.', 'secrets {'];
  for (const peer of servedPeers(peers)) {
    out.push(`\tike-${peerName(peer.name)} {`);
    if (peer.local_id !== '') out.push(`\t\tid-local = ${identity(peer.local_id)}`);
    out.push(`\t\tid-remote = ${expectedRemoteId(peer)}`, `\t\tsecret = ${hexSecret(peer.psk!)}`, '\t}');
  }
  // L2TP/IPsec clients are anonymous: their key is the one for any identity.
  if (l2tp) out.push(`\tike-${L2TP_CONNECTION} {`, `\t\tsecret = ${hexSecret(l2tp.psk)}`, '\t}');
  out.push('}');
  return `${out.join('\n')}\n`;
}

// ---- The checker: the rendered file parsed back and every setting held to its grammar ----

type Grammar = (value: string) => boolean;
const oneOf =
  (...values: string[]): Grammar =>
  (value) =>
    values.includes(value);
const isIdentity: Grammar = (value) => IPSEC_ID_PATTERN.test(value);
const isAddress: Grammar = (value) => value === '%any' || isIp(value) || /^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$/.test(value);
const isTsList: Grammar = (value) => value.split(',').every((item) => isCidr4(item, { network: true }) || /^dynamic\[udp(?:\/1701)?\]$/.test(item));
const isProposal: Grammar = (value) => /^[a-z0-9-]+(?:,[a-z0-9-]+)*$/.test(value);

/** The settings each kind of section may hold (swanctl.conf(5)), with their value grammars. */
const CONNECTION_KEYS: Record<string, Grammar> = {
  version: oneOf('0', '1', '2'),
  aggressive: oneOf('yes', 'no'),
  local_addrs: isAddress,
  remote_addrs: isAddress,
  proposals: isProposal,
  dpd_delay: (value) => /^\d{1,5}s$/.test(value),
};
const AUTH_KEYS: Record<string, Grammar> = { auth: oneOf('psk'), id: isIdentity };
const CHILD_KEYS: Record<string, Grammar> = {
  mode: oneOf('tunnel', 'transport'),
  local_ts: isTsList,
  remote_ts: isTsList,
  esp_proposals: isProposal,
  start_action: oneOf('none', 'trap', 'start'),
  dpd_action: oneOf('clear', 'trap', 'restart'),
};

function secretKey(key: string, value: string): string | null {
  if (key === 'secret') return /^0x(?:[0-9a-f]{2})+$/.test(value) ? null : 'secret is not hex';
  if (/^id(?:-[a-z0-9_]+)?$/.test(key)) return isIdentity(value) ? null : `identity ${key} is not a plain identity`;
  return `unknown secret setting ${key}`;
}

/** Where in the tree a setting is: `connections.<c>`, `…local`, `…children.<c>`, `secrets.ike-*`. */
function checkSetting(path: readonly string[], key: string, value: string): string | null {
  const [top, , sub, child] = path;
  let grammar: Grammar | undefined;
  if (top === 'connections' && path.length === 2) grammar = CONNECTION_KEYS[key];
  else if (top === 'connections' && path.length === 3 && (sub === 'local' || sub === 'remote')) grammar = AUTH_KEYS[key];
  else if (top === 'connections' && path.length === 4 && sub === 'children' && child) grammar = CHILD_KEYS[key];
  else if (top === 'secrets' && path.length === 2) return /^ike-/.test(path[1]!) ? secretKey(key, value) : `unknown secret section ${path[1]}`;
  else return `setting ${key} where none belongs (${path.join('.')})`;
  if (!grammar) return `unknown setting ${key} in ${path.join('.')}`;
  return grammar(value) ? null : `value of ${key} not in its grammar`;
}

/**
 * The checker of a rendered swanctl.conf or secrets file. strongSwan has no offline parser of
 * swanctl.conf (swanctl only reads one to send it to a running charon over vici), so the file
 * is parsed back with the settings grammar and every setting held to the grammar swanctl.conf(5)
 * gives its key: a key the renderer never writes, a value that is not a plain token of its
 * kind, an include leaving the folder, or a secret not in hex fails the install. The one
 * `swanctl --load-all` after the install is the final word: its refusal fails the apply.
 */
export function checkSwanctlServer(content: string): string[] {
  const problems: string[] = [];
  const path: string[] = [];
  for (const line of parseStrongswanSettings(content, problems)) {
    if (line.kind === 'open') {
      if (path.length === 0 && line.name !== 'connections' && line.name !== 'secrets') problems.push(`unknown top-level section ${line.name}`);
      path.push(line.name!);
    } else if (line.kind === 'close') path.pop();
    else if (line.kind === 'include') {
      if (path.length) problems.push('include inside a section');
      // A file beside this one (libstrongswan resolves a relative include there) or in swanctl's folder.
      if (!SECRETS_INCLUDE_PATH.test(line.value!)) problems.push('include of a file neither beside this one nor in /etc/swanctl');
    } else {
      const problem = checkSetting(path, line.key!, line.value!);
      if (problem) problems.push(problem);
    }
  }
  return problems;
}
