import { OPENVPN_DATA_CIPHERS, parsePeerSubnets, type OpenvpnServer } from '@portico/schema';
import { assertInert } from '../../engine/engine-types.js';
import { cidr4, ipv4, RenderValueError } from '../network/network-public.js';
import { netmaskToPrefix } from '@portico/schema';
import { OPENVPN_SERVER_CN, pkiFiles } from './vpn-server-pki.js';

/**
 * The OpenVPN server's configuration file and the client profile (spec §3, §9). Every value
 * is one validated token; paths are the daemon's own folders, checked to be plain.
 *
 * Data ciphers: the server and every profile negotiate OPENVPN_DATA_CIPHERS (AEAD ciphers
 * OpenSSL 3 runs everywhere). The configured cipher is only the fallback for clients that
 * cannot negotiate (`data-ciphers-fallback`); BF-CBC, the spec's default, needs OpenSSL's
 * legacy provider, which the server then loads (`providers legacy default`): where the
 * provider is missing the server refuses to start and the apply says so.
 *
 * Compression: `allow-compression asym` with the configured framing, so a client that
 * compresses is understood while the server itself never compresses (VORACLE).
 */

/** The tunnel device of the server: fixed, so the ruleset can name it. */
export const OPENVPN_DEVICE = 'ovpns0';

export const OPENVPN_FILES = {
  conf: '/etc/portico/openvpn/server.conf',
  /** Whether the server runs: always rendered, so a disabled server is stopped. */
  control: '/etc/portico/openvpn/server.json',
} as const;

/** The daemon's own folders the server's files live in: absolute, plain characters only. */
export function safePath(path: string): string {
  assertInert(path, 'path');
  if (!/^\/[A-Za-z0-9._/-]+$/.test(path) || path.includes('..')) throw new RenderValueError(`path ${JSON.stringify(path)} cannot be rendered`);
  return path;
}

export function openvpnStateDir(stateDir: string): string {
  return safePath(`${stateDir}/vpn-server`);
}

export function openvpnPkiDir(stateDir: string): string {
  return `${openvpnStateDir(stateDir)}/openvpn-pki`;
}

/** The management socket: revocation and kick-off reach the running server through it. */
export function openvpnManagementSocket(stateDir: string): string {
  return `${openvpnStateDir(stateDir)}/openvpn.sock`;
}

function hostToken(host: string): string {
  assertInert(host, 'host');
  if (!/^[A-Za-z0-9.:-]{1,253}$/.test(host)) throw new RenderValueError(`host ${JSON.stringify(host)} cannot be rendered`);
  return host;
}

function port(value: number): string {
  if (!Number.isInteger(value) || value < 1 || value > 65535) throw new RenderValueError('port out of range');
  return String(value);
}

function prefixMask(prefix: number): string {
  const bits = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (bits >>> shift) & 0xff).join('.');
}

const CIPHERS = new Set(['BF-CBC', 'AES-128-CBC', 'AES-256-CBC', 'AES-128-GCM', 'AES-256-GCM']);

function cipher(value: string): string {
  if (!CIPHERS.has(value)) throw new RenderValueError(`cipher ${JSON.stringify(value)} cannot be rendered`);
  return value;
}

function compression(value: string): string[] {
  if (value === 'none') return [];
  if (value !== 'lzo' && value !== 'lz4') throw new RenderValueError('unknown compression');
  return ['allow-compression asym', `compress ${value}`];
}

function proto(value: string): string {
  if (value !== 'udp' && value !== 'tcp') throw new RenderValueError('unknown protocol');
  return value === 'tcp' ? 'tcp-server' : 'udp';
}

/** The server's configuration file. */
export function renderOpenvpnServer(server: OpenvpnServer, stateDir: string): string {
  const files = pkiFiles(openvpnPkiDir(stateDir));
  const prefix = netmaskToPrefix(server.netmask);
  if (prefix === null) throw new RenderValueError('netmask cannot be rendered');
  const fallback = cipher(server.cipher);
  const lines = [
    '# Portico OpenVPN server. Generated; changes are overwritten.',
    `port ${port(server.port)}`,
    `proto ${proto(server.proto)}`,
    // A gateway has several addresses: a UDP answer must leave from the one the client dialled.
    ...(server.proto === 'udp' ? ['multihome'] : []),
    `dev ${OPENVPN_DEVICE}`,
    `dev-type ${server.dev === 'tap' ? 'tap' : 'tun'}`,
    'topology subnet',
    `server ${ipv4(server.server)} ${prefixMask(prefix)}`,
    `ca ${files.caCert}`,
    `cert ${files.serverCert}`,
    `key ${files.serverKey}`,
    `crl-verify ${files.crl}`,
    'dh none',
    'remote-cert-tls client',
    `data-ciphers ${OPENVPN_DATA_CIPHERS.join(':')}`,
    ...(fallback === 'BF-CBC' ? ['providers legacy default'] : []),
    `data-ciphers-fallback ${fallback}`,
    ...compression(server.compress),
    'keepalive 10 60',
    'persist-key',
    `management ${openvpnManagementSocket(stateDir)} unix`,
    'verb 3',
  ];
  for (const subnet of parsePeerSubnets(server.push_routes) ?? []) {
    const [address, bits] = cidr4(subnet).split('/');
    lines.push(`push "route ${address} ${prefixMask(Number(bits))}"`);
  }
  if (server.msdns !== '') lines.push(`push "dhcp-option DNS ${ipv4(server.msdns)}"`);
  return `${lines.join('\n')}\n`;
}

/** The strict line grammar of the server file: a directive and plain tokens, or a quoted push. */
export function checkOpenvpnConf(content: string): string[] {
  const problems: string[] = [];
  for (const line of content.split('\n')) {
    if (line === '' || line.startsWith('# ')) continue;
    if (/^push "[a-z-]+( [A-Za-z0-9.:-]+)+"$/.test(line)) continue;
    if (!/^[a-z][a-z0-9-]*( [A-Za-z0-9_.:/-]+)*$/.test(line)) problems.push(`not an OpenVPN directive: ${JSON.stringify(line.slice(0, 80))}`);
  }
  return problems;
}

export interface ProfileParts {
  name: string;
  ca: string;
  certificate: string;
  key: string;
}

function pemBlock(text: string, label: string): string {
  const match = new RegExp(`^-----BEGIN ${label}-----\\n[A-Za-z0-9+/=\\n]+-----END ${label}-----\\n?$`).exec(text.trim() + '\n');
  if (!match) throw new RenderValueError(`not a PEM ${label}`);
  return text.trim();
}

/** The `.ovpn` profile of one client: the server's address and settings, its CA, certificate and key inline. */
export function renderOpenvpnProfile(server: OpenvpnServer, parts: ProfileParts): string {
  const lines = [
    `# Portico OpenVPN profile of ${parts.name}`,
    'client',
    `dev ${server.dev === 'tap' ? 'tap' : 'tun'}`,
    `proto ${server.proto === 'tcp' ? 'tcp-client' : 'udp'}`,
    `remote ${hostToken(server.host)} ${port(server.port)}`,
    'resolv-retry infinite',
    'nobind',
    'persist-key',
    'remote-cert-tls server',
    `verify-x509-name ${OPENVPN_SERVER_CN} name`,
    `data-ciphers ${OPENVPN_DATA_CIPHERS.join(':')}`,
    ...compression(server.compress),
    'verb 3',
    '<ca>',
    pemBlock(parts.ca, 'CERTIFICATE'),
    '</ca>',
    '<cert>',
    pemBlock(parts.certificate, 'CERTIFICATE'),
    '</cert>',
    '<key>',
    pemBlock(parts.key, 'PRIVATE KEY'),
    '</key>',
  ];
  return `${lines.join('\n')}\n`;
}
