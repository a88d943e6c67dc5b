import { join } from 'node:path';
import { hotspotRadius, isIpv4, PPP_RADIUS_SECRET, type HotspotRadius } from '@portico/schema';
import { singletonRecord } from '../../config/config-domains.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { singletonDefaults } from '../../config/entity-routes.js';
import { assertInert, type RenderedFile } from '../../engine/engine-types.js';
import { integer, ipv4, RenderValueError } from '../network/network-public.js';
import { ABSOLUTE_PATH, lineProblems, path, pppSettingsOf, PPP_SERVER_FILES, PPP_SERVER_HOOK, PPP_SESSION_DIR, renderPppServerOptions } from './ppp-server-files.js';
import type { PppServerKind, PppServerSettings } from '@portico/schema';

/**
 * RADIUS as the PPP servers' account source: pppd's radius plugin (radius.so, which carries its
 * own copy of radiusclient) with the device's one RADIUS server, the hotspot's (/hotspot/radius:
 * addresses, shared key, ports, timeout, retries). One server for the whole device is what spec
 * §3 describes, and a second copy of its key on these pages would drift from it.
 *
 * radiusclient reads three files: its configuration (`keyword value` lines), the servers file
 * (`host secret`, whitespace separated: the key cannot hold a space and is cut at 48 bytes, so
 * such a key is refused rather than cut) and the dictionary, without which it cannot build the
 * attributes it sends. Debian's ppp ships none of them.
 */

export const PPP_RADIUS_FILES = {
  config: '/etc/portico/ppp-server/radiusclient.conf',
  servers: '/etc/portico/ppp-server/radius-servers',
  dictionary: '/etc/portico/ppp-server/radius-dictionary',
} as const;

/** Why the hotspot's RADIUS server cannot serve the PPP servers, or null when it can. */
export function pppRadiusProblem(radius: HotspotRadius): string | null {
  if (!radius.enabled || !isIpv4(radius.radiusip)) return 'validation.ppp.radiusUnset';
  if (radius.radiusip2 !== '' && !isIpv4(radius.radiusip2)) return 'validation.ppp.radiusUnset';
  if (!PPP_RADIUS_SECRET.test(radius.sharekey)) return 'validation.ppp.radiusSecret';
  return null;
}

export function hotspotRadiusOf(snapshot: ConfigSnapshot): HotspotRadius {
  return hotspotRadius.schema.parse({ ...singletonDefaults(hotspotRadius), ...singletonRecord(snapshot, hotspotRadius.name) }) as HotspotRadius;
}

function addresses(radius: HotspotRadius): string[] {
  if (pppRadiusProblem(radius)) throw new RenderValueError('the RADIUS server (Hotspot > RADIUS) cannot serve the PPP servers');
  return [radius.radiusip, ...(radius.radiusip2 ? [radius.radiusip2] : [])].map(ipv4);
}

/**
 * radiusclient.conf. `seqfile` (the request identifier counter) goes where the link hook keeps
 * its records; `mapfile` maps ttys to NAS ports, which the plugin takes from the `pppN` unit
 * instead, so it is /dev/null (the key is mandatory). radius_retries must be at least 1.
 * NAS-Identifier: the hotspot's, else `portico`; without one radiusclient sends NAS-IP-Address
 * found by resolving the host name, and fails every request when the name does not resolve.
 */
export function renderRadiusClientConf(radius: HotspotRadius, runDir: string): string {
  const servers = addresses(radius);
  const port = (value: number) => integer(value, 1, 65535, 'RADIUS port');
  return [
    '# Portico PPP servers: radiusclient settings (rendered, do not edit)',
    'auth_order radius',
    'login_tries 4',
    'login_timeout 60',
    'nologin /etc/nologin',
    `authserver ${servers.map((address) => `${address}:${port(radius.authport)}`).join(',')}`,
    `acctserver ${servers.map((address) => `${address}:${port(radius.accoutport)}`).join(',')}`,
    `servers ${PPP_RADIUS_FILES.servers}`,
    `dictionary ${PPP_RADIUS_FILES.dictionary}`,
    `seqfile ${path(join(runDir, 'radius.seq'))}`,
    'mapfile /dev/null',
    `radius_timeout ${integer(radius.timeout, 1, 30, 'RADIUS timeout')}`,
    `radius_retries ${integer(Math.max(1, radius.retries), 1, 5, 'RADIUS retries')}`,
    `nas_identifier ${nasIdentifier(radius.nasid)}`,
    '',
  ].join('\n');
}

const NAS_ID = /^[\x21-\x7e](?:[\x20-\x7e]{0,62}[\x21-\x7e])?$/;

/** radiusclient takes the rest of the line, spaces inside included, as the value. */
function nasIdentifier(value: string): string {
  assertInert(value, 'NAS-Identifier');
  const id = value.trim() || 'portico';
  if (!NAS_ID.test(id)) throw new RenderValueError(`NAS-Identifier ${JSON.stringify(value)} cannot be rendered`);
  return id;
}

/** The servers file (0600): each server's address and the shared key, one token each. */
export function renderRadiusServers(radius: HotspotRadius): string {
  assertInert(radius.sharekey, 'RADIUS shared key');
  if (!PPP_RADIUS_SECRET.test(radius.sharekey)) throw new RenderValueError('the RADIUS shared key cannot be rendered for pppd (at most 48 characters, no spaces)');
  return `${addresses(radius).map((address) => `${address} ${radius.sharekey}`).join('\n')}\n`;
}

/** Attributes radius.so sends or reads (RFC 2865, 2866, 2869; Microsoft's vendor 311 for MS-CHAP and MPPE). */
const STANDARD_ATTRIBUTES: ReadonlyArray<[string, number, 'string' | 'integer' | 'ipaddr' | 'date']> = [
  ['User-Name', 1, 'string'],
  ['Password', 2, 'string'],
  ['CHAP-Password', 3, 'string'],
  ['NAS-IP-Address', 4, 'ipaddr'],
  ['NAS-Port-Id', 5, 'integer'],
  ['Service-Type', 6, 'integer'],
  ['Framed-Protocol', 7, 'integer'],
  ['Framed-IP-Address', 8, 'ipaddr'],
  ['Framed-IP-Netmask', 9, 'ipaddr'],
  ['Framed-Routing', 10, 'integer'],
  ['Filter-Id', 11, 'string'],
  ['Framed-MTU', 12, 'integer'],
  ['Framed-Compression', 13, 'integer'],
  ['Reply-Message', 18, 'string'],
  ['Framed-Route', 22, 'string'],
  ['State', 24, 'string'],
  ['Class', 25, 'string'],
  ['Session-Timeout', 27, 'integer'],
  ['Idle-Timeout', 28, 'integer'],
  ['Called-Station-Id', 30, 'string'],
  ['Calling-Station-Id', 31, 'string'],
  ['NAS-Identifier', 32, 'string'],
  ['Acct-Status-Type', 40, 'integer'],
  ['Acct-Delay-Time', 41, 'integer'],
  ['Acct-Input-Octets', 42, 'integer'],
  ['Acct-Output-Octets', 43, 'integer'],
  ['Acct-Session-Id', 44, 'string'],
  ['Acct-Authentic', 45, 'integer'],
  ['Acct-Session-Time', 46, 'integer'],
  ['Acct-Input-Packets', 47, 'integer'],
  ['Acct-Output-Packets', 48, 'integer'],
  ['Acct-Terminate-Cause', 49, 'integer'],
  ['Acct-Input-Gigawords', 52, 'integer'],
  ['Acct-Output-Gigawords', 53, 'integer'],
  ['CHAP-Challenge', 60, 'string'],
  ['NAS-Port-Type', 61, 'integer'],
  ['Port-Limit', 62, 'integer'],
  ['Connect-Info', 77, 'string'],
  ['Acct-Interim-Interval', 85, 'integer'],
];

const MICROSOFT_ATTRIBUTES: ReadonlyArray<[string, number, 'string' | 'integer' | 'ipaddr']> = [
  ['MS-CHAP-Response', 1, 'string'],
  ['MS-CHAP-Error', 2, 'string'],
  ['MS-MPPE-Encryption-Policy', 7, 'string'],
  ['MS-MPPE-Encryption-Types', 8, 'string'],
  ['MS-CHAP-Challenge', 11, 'string'],
  ['MS-CHAP-MPPE-Keys', 12, 'string'],
  ['MS-MPPE-Send-Key', 16, 'string'],
  ['MS-MPPE-Recv-Key', 17, 'string'],
  ['MS-CHAP2-Response', 25, 'string'],
  ['MS-CHAP2-Success', 26, 'string'],
  ['MS-Primary-DNS-Server', 28, 'ipaddr'],
  ['MS-Secondary-DNS-Server', 29, 'ipaddr'],
];

/** The dictionary: fixed content, rendered so the plugin never depends on a package's copy. */
export function renderRadiusDictionary(): string {
  return [
    '# Portico PPP servers: RADIUS dictionary (rendered, do not edit)',
    ...STANDARD_ATTRIBUTES.map(([name, number, type]) => `ATTRIBUTE ${name} ${number} ${type}`),
    'VALUE Service-Type Framed-User 2',
    'VALUE Framed-Protocol PPP 1',
    'VALUE Acct-Status-Type Start 1',
    'VALUE Acct-Status-Type Stop 2',
    'VALUE Acct-Status-Type Alive 3',
    'VENDOR Microsoft 311',
    ...MICROSOFT_ATTRIBUTES.map(([name, number, type]) => `ATTRIBUTE ${name} ${number} ${type} Microsoft`),
    '',
  ].join('\n');
}

/** The three files, when a server takes its accounts from RADIUS. */
export function renderPppRadiusFiles(radius: HotspotRadius, runDir: string): RenderedFile[] {
  return [
    { target: PPP_RADIUS_FILES.config, content: renderRadiusClientConf(radius, runDir), check: 'ppp-radius-conf' },
    { target: PPP_RADIUS_FILES.servers, content: renderRadiusServers(radius), mode: 0o600, check: 'ppp-radius-servers' },
    { target: PPP_RADIUS_FILES.dictionary, content: renderRadiusDictionary(), check: 'ppp-radius-dictionary' },
  ];
}

const IP = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const SERVER_LIST = /^\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}(?:,\d{1,3}(?:\.\d{1,3}){3}:\d{1,5})?$/;
const CONF_KEYS: Readonly<Record<string, RegExp>> = {
  auth_order: /^radius$/,
  login_tries: /^\d{1,2}$/,
  login_timeout: /^\d{1,3}$/,
  nologin: ABSOLUTE_PATH,
  authserver: SERVER_LIST,
  acctserver: SERVER_LIST,
  servers: ABSOLUTE_PATH,
  dictionary: ABSOLUTE_PATH,
  seqfile: ABSOLUTE_PATH,
  mapfile: ABSOLUTE_PATH,
  radius_timeout: /^[1-9]\d?$/,
  radius_retries: /^[1-9]$/,
};

// radiusclient has no check mode, and a line it does not know it skips with a warning rather
// than refuse: every line is held to what this domain writes (lineProblems in ppp-server-files).
const lines = (content: string, check: (line: string) => boolean) => lineProblems(content, (line) => (check(line) ? null : 'bad line'));

export function checkRadiusClientConf(content: string): string[] {
  const seen = new Set<string>();
  const problems = lines(content, (line) => {
    const [key, value, extra] = line.split(' ');
    if (key === 'nas_identifier' && !seen.has(key)) {
      seen.add(key);
      return NAS_ID.test(line.slice(key.length + 1));
    }
    // radiusclient refuses a keyword given twice.
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return extra === undefined && value !== undefined && CONF_KEYS[key]?.test(value) === true;
  });
  for (const key of ['authserver', 'acctserver', 'servers', 'dictionary', 'seqfile', 'mapfile', 'radius_timeout', 'radius_retries']) {
    if (!seen.has(key)) problems.push(`${key} missing`);
  }
  return problems;
}

export function checkRadiusServers(content: string): string[] {
  return lines(content, (line) => {
    const [host, secret, extra] = line.split(' ');
    // rc_find_server reads lines of 128 bytes: a longer one would be cut mid-secret.
    return line.length < 127 && extra === undefined && IP.test(host ?? '') && PPP_RADIUS_SECRET.test(secret ?? '') && !secret!.startsWith('#');
  });
}

export function checkRadiusDictionary(content: string): string[] {
  return lines(
    content,
    (line) =>
      /^ATTRIBUTE [A-Za-z0-9-]{1,40} \d{1,3} (?:string|integer|ipaddr|date)(?: Microsoft)?$/.test(line) ||
      /^VALUE [A-Za-z0-9-]{1,40} [A-Za-z0-9-]{1,40} \d{1,10}$/.test(line) ||
      line === 'VENDOR Microsoft 311',
  );
}

/**
 * pppd's own files for the servers a driver runs: radiusclient's, once, when an enabled server
 * takes its accounts from RADIUS, and each enabled server's options; with the servers' settings.
 */
export function renderPppdFiles(
  snapshot: ConfigSnapshot,
  kinds: readonly PppServerKind[],
  root: string,
): { servers: Array<{ kind: PppServerKind; server: PppServerSettings }>; files: RenderedFile[] } {
  const servers = kinds.map((kind) => ({ kind, server: pppSettingsOf(snapshot, kind) }));
  const radius = servers.some(({ server }) => server.enabled && server.authway === 'radius');
  const files = radius ? renderPppRadiusFiles(hotspotRadiusOf(snapshot), join(root, PPP_SESSION_DIR)) : [];
  const env = { root, hook: PPP_SERVER_HOOK, radiusConfig: radius ? PPP_RADIUS_FILES.config : undefined };
  for (const { kind, server } of servers) {
    if (server.enabled) files.push({ target: PPP_SERVER_FILES.options(kind), content: renderPppServerOptions(kind, server, env), check: 'ppp-options' });
  }
  return { servers, files };
}
