import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  intToIpv4,
  ipv4ToInt,
  l2tpServer,
  parseIpv4Range,
  pppoeServer,
  pptpServer,
  PPP_LCP_FAILURE,
  PPP_LCP_INTERVAL,
  PPP_MTU,
  pppExpiredSplit,
  type AnyEntity,
  type L2tpServer,
  type PppServerKind,
  type PppServerSettings,
  type PppoeServer,
  type PptpServer,
} from '@portico/schema';
import { singletonRecord } from '../../config/config-domains.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { singletonDefaults } from '../../config/entity-routes.js';
import { assertInert } from '../../engine/engine-types.js';
import { device, integer, ipv4, RenderValueError } from '../network/network-public.js';

/**
 * The PPP servers' files. pppd reads one options file per server; pptpd and xl2tpd each read
 * their own configuration; pppoe-server takes everything on its command line, so its settings
 * are a JSON file of already checked values the activation turns into an argument array.
 * Every value is a validated token (address, integer, device, absolute path, fixed keyword):
 * nothing in these files is ever quoted, so no value can be read as syntax.
 */

export const PPP_SERVER_DIR = '/etc/portico/ppp-server';
export const PPP_SERVER_FILES = {
  options: (kind: PppServerKind) => `${PPP_SERVER_DIR}/${kind}.options`,
  pptpd: `${PPP_SERVER_DIR}/pptpd.conf`,
  xl2tpd: `${PPP_SERVER_DIR}/xl2tpd.conf`,
  pppoe: `${PPP_SERVER_DIR}/pppoe-server.json`,
  control: `${PPP_SERVER_DIR}/servers.json`,
} as const;
/** Where the link hook records each session (`<pppN>.json`), under the install root. */
export const PPP_SESSION_DIR = 'run/portico/ppp-server';
/** The name each server's pppd authenticates as: the secrets files' server column. */
export const PPP_SERVER_NAME: Readonly<Record<PppServerKind, string>> = { pptp: 'portico-pptp', l2tp: 'portico-l2tp', pppoe: 'portico-pppoe' };

const here = dirname(fileURLToPath(import.meta.url));
/** pppd's link-up and link-down script: beside this module in the source tree and in dist/. */
export const PPP_SERVER_HOOK = join(here, 'ppp-server-hook.mjs');

const ENTITIES: Readonly<Record<PppServerKind, AnyEntity>> = {
  pptp: pptpServer as unknown as AnyEntity,
  l2tp: l2tpServer as unknown as AnyEntity,
  pppoe: pppoeServer as unknown as AnyEntity,
};

export function pppEntity(kind: PppServerKind): AnyEntity {
  return ENTITIES[kind];
}

/** A server's saved settings over the declared defaults. */
export function pppSettingsOf(snapshot: ConfigSnapshot, kind: 'pptp'): PptpServer;
export function pppSettingsOf(snapshot: ConfigSnapshot, kind: 'l2tp'): L2tpServer;
export function pppSettingsOf(snapshot: ConfigSnapshot, kind: 'pppoe'): PppoeServer;
export function pppSettingsOf(snapshot: ConfigSnapshot, kind: PppServerKind): PppServerSettings;
export function pppSettingsOf(snapshot: ConfigSnapshot, kind: PppServerKind): PppServerSettings {
  const entity = ENTITIES[kind];
  return entity.schema.parse({ ...singletonDefaults(entity), ...singletonRecord(snapshot, entity.name) }) as PppServerSettings;
}

/** The remote range as first address and count, checked again for the files. */
export function remoteRange(settings: PppServerSettings): { first: string; last: string; count: number } {
  const range = parseIpv4Range(settings.remoteip);
  if (!range || range.first >>> 8 !== range.last >>> 8) throw new RenderValueError(`remote range ${JSON.stringify(settings.remoteip)} cannot be rendered`);
  return { first: intToIpv4(range.first), last: intToIpv4(range.last), count: range.last - range.first + 1 };
}

/**
 * The PPPoE server's addresses for expired accounts ("remind expired users"): the tail of its
 * range, in order; null while the option is off. pppoe-server hands out only the part before it.
 */
export function pppExpiredPool(settings: PppoeServer): string[] | null {
  if (!settings.remindexpired) return null;
  const split = pppExpiredSplit(settings.remoteip);
  if (!split) throw new RenderValueError(`remote range ${JSON.stringify(settings.remoteip)} cannot set addresses aside for expired accounts`);
  const out: string[] = [];
  for (let address = split.expired.first; address <= split.expired.last; address += 1) out.push(intToIpv4(address));
  return out;
}

export const ABSOLUTE_PATH = /^\/[A-Za-z0-9._/+-]+$/;

/** An absolute path as one inert token (no space, quote or `..` segment). */
export function path(value: string): string {
  assertInert(value, 'path');
  if (!ABSOLUTE_PATH.test(value) || value.includes('/../')) throw new RenderValueError(`path ${JSON.stringify(value)} cannot be rendered`);
  return value;
}

/** `set NAME=value` for the hook's environment: a path, a path list or a keyword. */
function setting(name: string, value: string): string {
  assertInert(value, name);
  if (!/^[A-Za-z0-9._/+:-]+$/.test(value)) throw new RenderValueError(`${name} ${JSON.stringify(value)} cannot be rendered`);
  return `${name}=${value}`;
}

export interface PppRenderEnv {
  /** Install root the hook records under (the lab's throwaway folder, `/` on a device). */
  root: string;
  hook: string;
  /** radiusclient's configuration, for a server whose accounts come from RADIUS. */
  radiusConfig?: string;
}

/**
 * pppd's options for one server. Authentication is always required: the accepted protocols
 * are required one by one and the others refused; the server's own name picks its lines in
 * the secrets files; MPPE and compression as set; the hook records each session for the daemon.
 */
export function renderPppServerOptions(kind: PppServerKind, settings: PppServerSettings, env: PppRenderEnv): string {
  // No `nodetach`: pptpd hands pppd the link as its standard input and output, where a pppd that
  // does not detach writes its log, into the link; pppoe-server and xl2tpd pass it themselves.
  const lines: string[][] = [['name', PPP_SERVER_NAME[kind]], ['auth'], ['nodefaultroute'], ['noipv6']];
  // The plugin's own options are known to pppd only once the plugin is loaded: it comes first.
  if (settings.authway === 'radius') {
    if (!env.radiusConfig) throw new RenderValueError(`the ${kind} server takes its accounts from RADIUS, which is not set up`);
    lines.unshift(['plugin', 'radius.so'], ['radius-config-file', path(env.radiusConfig)]);
  }
  lines.push(['ms-dns', ipv4(settings.msdns || settings.localip)]);
  const protos = new Set(settings.authproto);
  const option = { pap: 'pap', chap: 'chap', mschap: 'mschap', 'mschap-v2': 'mschap-v2' } as const;
  for (const proto of ['pap', 'chap', 'mschap', 'mschap-v2'] as const) lines.push([protos.has(proto) ? `require-${option[proto]}` : `refuse-${option[proto]}`]);
  lines.push(['refuse-eap']);
  lines.push(['mtu', integer(settings.mtu, PPP_MTU.min, PPP_MTU.max, 'MTU')], ['mru', integer(settings.mru, PPP_MTU.min, PPP_MTU.max, 'MRU')]);
  if (settings.lcpchecktime > 0) {
    lines.push(['lcp-echo-interval', integer(settings.lcpchecktime, PPP_LCP_INTERVAL.min, PPP_LCP_INTERVAL.max, 'LCP interval')]);
    lines.push(['lcp-echo-failure', integer(settings.lcpchecknum, PPP_LCP_FAILURE.min, PPP_LCP_FAILURE.max, 'LCP failures')]);
  }
  if (settings.mppe) lines.push([settings.mppe_option === '128' ? 'require-mppe-128' : settings.mppe_option === '40' ? 'require-mppe-40' : 'require-mppe']);
  else lines.push(['nomppe']);
  if (!settings.compress) lines.push(['nodeflate'], ['nobsdcomp'], ['novj']);
  else if (settings.compress_option === 'deflate') lines.push(['nobsdcomp']);
  else if (settings.compress_option === 'bsdcomp') lines.push(['nodeflate']);
  const hookPath = [dirname(process.execPath), '/usr/sbin', '/usr/bin', '/sbin', '/bin'].join(':');
  lines.push(['ip-up-script', path(env.hook)], ['ip-down-script', path(env.hook)]);
  lines.push(['set', setting('PORTICO_PPP_SERVER_DIR', join(env.root, PPP_SESSION_DIR))], ['set', setting('PORTICO_PPP_SERVER_KIND', kind)], ['set', setting('PATH', hookPath)]);
  const body = lines.map((line) => line.join(' '));
  return `# Portico ${kind} server: pppd options (rendered, do not edit)\n${body.join('\n')}\n`;
}

/** The options a server's pppd file may carry (pppd 2.4.9 and its radius plugin). */
const SERVER_OPTIONS = new Map<string, RegExp | null>([
  ['plugin', /^radius\.so$/],
  ['radius-config-file', ABSOLUTE_PATH],
  ['name', /^portico-(?:pptp|l2tp|pppoe)$/],
  ['auth', null],
  ['nodefaultroute', null],
  ['noipv6', null],
  ['ms-dns', /^\d{1,3}(?:\.\d{1,3}){3}$/],
  ...['pap', 'chap', 'mschap', 'mschap-v2', 'eap'].flatMap((p): Array<[string, null]> => [[`require-${p}`, null], [`refuse-${p}`, null]]),
  ['mtu', /^\d{2,4}$/],
  ['mru', /^\d{2,4}$/],
  ['lcp-echo-interval', /^\d{1,3}$/],
  ['lcp-echo-failure', /^\d{1,3}$/],
  ['require-mppe', null],
  ['require-mppe-128', null],
  ['require-mppe-40', null],
  ['nomppe', null],
  ['nodeflate', null],
  ['nobsdcomp', null],
  ['novj', null],
  ['ip-up-script', ABSOLUTE_PATH],
  ['ip-down-script', ABSOLUTE_PATH],
  ['set', /^(?:PORTICO_PPP_SERVER_DIR|PORTICO_PPP_SERVER_KIND|PATH)=[A-Za-z0-9._/+:-]+$/],
]);

/**
 * The options file's checker: pppd has no check mode (it opens the device first), so every line
 * is held to the option's own grammar: a known option, the arguments it takes, nothing quoted.
 */
export function checkPppServerOptions(content: string): string[] {
  const problems: string[] = [];
  if (!content.endsWith('\n')) problems.push('file does not end with a newline');
  content
    .slice(0, -1)
    .split('\n')
    .forEach((line, index) => {
      const at = `line ${index + 1}`;
      if (!/^[\x20-\x7e]*$/.test(line)) return problems.push(`${at}: not printable ASCII`);
      if (line.startsWith('# ')) return undefined;
      const [option, ...args] = line.split(' ');
      if (!SERVER_OPTIONS.has(option!)) return problems.push(`${at}: unknown option ${option}`);
      const grammar = SERVER_OPTIONS.get(option!);
      if (grammar === null ? args.length !== 0 : args.length !== 1 || !grammar!.test(args[0]!)) return problems.push(`${at}: bad argument of ${option}`);
      return undefined;
    });
  return problems;
}

/** pptpd.conf: the options file, the server's address, the clients' range as `a.b.c.x-y`. */
export function renderPptpdConf(settings: PptpServer): string {
  const range = remoteRange(settings);
  const lastOctet = ipv4ToInt(range.last) & 0xff;
  return [
    '# Portico PPTP server (rendered, do not edit)',
    `option ${path(PPP_SERVER_FILES.options('pptp'))}`,
    `localip ${ipv4(settings.localip)}`,
    `remoteip ${ipv4(range.first)}-${integer(lastOctet, 1, 254, 'range end')}`,
    '',
  ].join('\n');
}

export function checkPptpdConf(content: string): string[] {
  const grammar: Record<string, RegExp> = {
    option: ABSOLUTE_PATH,
    localip: /^\d{1,3}(?:\.\d{1,3}){3}$/,
    remoteip: /^\d{1,3}(?:\.\d{1,3}){3}-\d{1,3}$/,
  };
  return lineProblems(content, (line) => {
    const [key, value, extra] = line.split(' ');
    return grammar[key!] && value !== undefined && extra === undefined && grammar[key!]!.test(value) ? null : `bad line ${line}`;
  });
}

/** xl2tpd.conf: one LNS for every client, authentication required of pppd, its options file. */
export function renderXl2tpdConf(settings: L2tpServer): string {
  const range = remoteRange(settings);
  return [
    '; Portico L2TP server (rendered, do not edit)',
    '[global]',
    'port = 1701',
    'access control = no',
    '[lns default]',
    `ip range = ${ipv4(range.first)}-${ipv4(range.last)}`,
    `local ip = ${ipv4(settings.localip)}`,
    'require authentication = yes',
    `name = ${PPP_SERVER_NAME.l2tp}`,
    'length bit = yes',
    `pppoptfile = ${path(PPP_SERVER_FILES.options('l2tp'))}`,
    '',
  ].join('\n');
}

const XL2TPD_KEYS: Record<string, RegExp> = {
  port: /^1701$/,
  'access control': /^no$/,
  'ip range': /^\d{1,3}(?:\.\d{1,3}){3}-\d{1,3}(?:\.\d{1,3}){3}$/,
  'local ip': /^\d{1,3}(?:\.\d{1,3}){3}$/,
  'require authentication': /^yes$/,
  name: /^portico-l2tp$/,
  'length bit': /^yes$/,
  pppoptfile: ABSOLUTE_PATH,
};

/** xl2tpd has no check mode: sections and `key = value` lines held to each key's grammar. */
export function checkXl2tpdConf(content: string): string[] {
  return lineProblems(content, (line) => {
    if (line.startsWith('; ') || line === '[global]' || line === '[lns default]') return null;
    const match = /^([a-z][a-z ]*[a-z]) = (\S+)$/.exec(line);
    return match && XL2TPD_KEYS[match[1]!]?.test(match[2]!) ? null : `bad line ${line}`;
  });
}

/** pppoe-server's settings, each value checked; the activation makes its argument array. */
export interface PppoeServerArgs {
  interfaces: string[];
  localip: string;
  first: string;
  count: number;
  options: string;
}

export function renderPppoeArgs(settings: PppoeServer, devices: readonly string[]): string {
  const range = remoteRange(settings);
  // The addresses set aside for expired accounts are given by their secrets lines, never by pppoe-server.
  const count = range.count - (pppExpiredPool(settings)?.length ?? 0);
  const args: PppoeServerArgs = {
    interfaces: devices.map(device),
    localip: ipv4(settings.localip),
    first: ipv4(range.first),
    count: Number(integer(count, 1, 253, 'clients')),
    options: path(PPP_SERVER_FILES.options('pppoe')),
  };
  return `${JSON.stringify(args)}\n`;
}

export function parsePppoeArgs(content: string): PppoeServerArgs | null {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return null;
  }
  const args = value as PppoeServerArgs;
  const ip = /^\d{1,3}(?:\.\d{1,3}){3}$/;
  const ok =
    !!args &&
    Array.isArray(args.interfaces) &&
    args.interfaces.length > 0 &&
    args.interfaces.every((name) => typeof name === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,14}$/.test(name)) &&
    typeof args.localip === 'string' &&
    ip.test(args.localip) &&
    typeof args.first === 'string' &&
    ip.test(args.first) &&
    Number.isInteger(args.count) &&
    args.count >= 1 &&
    args.count <= 253 &&
    typeof args.options === 'string' &&
    ABSOLUTE_PATH.test(args.options);
  return ok ? args : null;
}

/** pppoe-server's command line: foreground, each interface, the addresses, the options file. */
export function pppoeServerArgv(args: PppoeServerArgs): string[] {
  return ['pppoe-server', '-F', ...args.interfaces.flatMap((name) => ['-I', name]), '-L', args.localip, '-R', args.first, '-N', String(args.count), '-O', args.options];
}

/** Each line of a rendered file: printable, `# ` comments skipped, the others held to `check`. */
export function lineProblems(content: string, check: (line: string) => string | null): string[] {
  if (!content.endsWith('\n')) return ['file does not end with a newline'];
  const problems: string[] = [];
  content
    .slice(0, -1)
    .split('\n')
    .forEach((line, index) => {
      if (!/^[\x20-\x7e]+$/.test(line) || line.startsWith('#') !== line.startsWith('# ')) return problems.push(`line ${index + 1}: malformed`);
      if (line.startsWith('# ')) return undefined;
      const problem = check(line);
      if (problem) problems.push(`line ${index + 1}: ${problem}`);
      return undefined;
    });
  return problems;
}
