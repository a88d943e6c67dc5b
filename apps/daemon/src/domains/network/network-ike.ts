import { collectionRows } from '../../config/config-domains.js';
import type { ConfigDomain, ConfigSnapshot } from '../../config/config-types.js';
import { extensionPoint } from '../../config/domain-module.js';
import type { RenderedFile } from '../../engine/engine-types.js';
import { NETWORK_FILES } from './network-config.js';
import { RenderValueError } from './network-syntax.js';

/**
 * The one IKE daemon of the linux driver. Every IPsec user of the device — the network's IPsec
 * clients and, through IKE_USERS, other domains (the IPsec and L2TP/IPsec servers) — shares ONE
 * charon the daemon runs (network-ike-daemon.ts): two charons cannot both hold UDP 500/4500.
 *
 * Each user renders its own swanctl.conf (connections, keys in a 0600 file it includes); this
 * domain renders the top file that includes all of them, so one `swanctl --load-all` of the top
 * file loads everyone's connections together and never unloads another user's. It renders
 * charon's strongswan.conf too: its vici socket, its log and the options its users need.
 */

export const IKE_FILES = {
  /** charon's strongswan.conf (STRONGSWAN_CONF): vici socket, log to stderr, plugins, options. */
  charon: '/etc/portico/ike/strongswan.conf',
  /** The top swanctl.conf: an include of each active user's connections file, nothing else. */
  swanctl: '/etc/portico/ike/swanctl.conf',
  /** Whether charon runs: always rendered, so charon stops when its last user goes. */
  control: '/etc/portico/ike/ike.json',
} as const;

/** The folder of charon's vici socket (under the system root). */
export const IKE_RUN_DIR = '/run/portico/ike';

const HEADER = '# Portico IKE daemon. Generated; changes are overwritten.';

/** charon's vici socket: the daemon's own, never a system charon's. */
export function ikeViciSocket(systemRoot: string): string {
  const socket = `${systemRoot.replace(/\/+$/, '')}${IKE_RUN_DIR}/charon.vici`;
  if (!/^\/[A-Za-z0-9._/-]+$/.test(socket) || socket.split('/').includes('..')) throw new RenderValueError(`vici socket path ${JSON.stringify(socket)} cannot be rendered`);
  return socket;
}

/** Another domain's share of the IKE daemon. */
export interface IkeUser {
  /** Entities its share is rendered from: a change to them re-renders the IKE files. */
  entities: readonly string[];
  /** Its swanctl.conf (absolute target), rendered by its own domain while it is active. */
  connections: string;
  /** Whether it has anything for charon in this configuration (its file is rendered then). */
  active(snapshot: ConfigSnapshot): boolean;
  /** IKEv1 aggressive mode with a pre-shared key as responder: charon refuses it unless told. */
  aggressivePsk?(snapshot: ConfigSnapshot): boolean;
}

/** The extension point other domains fill with their share of the one IKE daemon. */
export const IKE_USERS = extensionPoint<IkeUser>('network.ike');

/** The network's own IPsec clients that charon carries (enabled ones). */
function clientsActive(snapshot: ConfigSnapshot): boolean {
  return collectionRows(snapshot, 'vpnClient').some((row) => row.enabled === true && row.type === 'ipsec');
}

/** Plugins charon loads: what PSK authentication, ESP in the kernel and vici need, nothing else. */
export const CHARON_PLUGINS = 'random nonce aes sha1 sha2 md5 hmac gmp kdf xcbc pem pkcs1 pubkey x509 kernel-netlink socket-default vici';

/**
 * charon's strongswan.conf: its own vici socket (so it never meets a system charon's), its log
 * to stderr (the daemon keeps it in a bounded file) at level 1 (configuration at 1 too: peer
 * configs looked up by identity, which is how a wrong ID shows; keys are logged only from level
 * 2 on, never here) with network and encoding dumps off, and no routes of its own (the tunnels
 * are policy-based). IKEv1 aggressive mode with a pre-shared key needs strongSwan's consent.
 */
export function renderCharonConf(systemRoot: string, aggressive: boolean): string {
  const out = [
    HEADER,
    'charon-systemd {',
    `\tload = ${CHARON_PLUGINS}`,
    '\tjournal {',
    '\t\tdefault = -1',
    '\t}',
    '}',
    'charon {',
    `\tload = ${CHARON_PLUGINS}`,
    '\tinstall_routes = no',
    ...(aggressive ? ['\ti_dont_care_about_security_and_use_aggressive_mode_psk = yes'] : []),
    '\tplugins {',
    '\t\tvici {',
    `\t\t\tsocket = unix://${ikeViciSocket(systemRoot)}`,
    '\t\t}',
    '\t}',
    '\tfilelog {',
    '\t\tstderr {',
    '\t\t\tdefault = 1',
    '\t\t\tcfg = 1',
    '\t\t\tnet = 0',
    '\t\t\tenc = 0',
    '\t\t\tike_name = yes',
    '\t\t}',
    '\t}',
    '}',
  ];
  return `${out.join('\n')}\n`;
}

/** An absolute path of a rendered file, as a strongSwan `include` takes it. */
function includePath(path: string): string {
  if (!/^\/[A-Za-z0-9._/-]+\.conf$/.test(path) || path.split('/').includes('..')) throw new RenderValueError(`swanctl include ${JSON.stringify(path)} cannot be rendered`);
  return path;
}

/**
 * The top swanctl.conf: one include per user's connections file, under the system root (where
 * the files are installed). libstrongswan reads an include that matches no file as empty.
 */
export function renderIkeSwanctl(systemRoot: string, files: readonly string[]): string {
  const root = systemRoot === '/' ? '' : systemRoot.replace(/\/+$/, '');
  const out = [HEADER, `# Load with: swanctl --load-all --file ${root}${IKE_FILES.swanctl}`];
  for (const file of files) out.push(`include ${includePath(`${root}${file}`)}`);
  return `${out.join('\n')}\n`;
}

/**
 * The IKE daemon as a config domain of the linux driver: charon's file and the top swanctl.conf
 * while any user is active, and the control file always. Its entities are the clients' and
 * every user's, so each of their changes renders it again (a constant render when nothing moved).
 */
export function ikeDomain(systemRoot: string, users: readonly IkeUser[]): ConfigDomain {
  return {
    name: 'ike',
    entities: [...new Set(['vpnClient', ...users.flatMap((user) => user.entities)])],
    render(snapshot) {
      const active = users.filter((user) => user.active(snapshot));
      const clients = clientsActive(snapshot);
      const enabled = clients || active.length > 0;
      const files: RenderedFile[] = [];
      if (enabled) {
        const aggressive = active.some((user) => user.aggressivePsk?.(snapshot) === true);
        const includes = [...(clients ? [NETWORK_FILES.swanctl] : []), ...active.map((user) => user.connections)];
        files.push({ target: IKE_FILES.charon, content: renderCharonConf(systemRoot, aggressive), check: 'ike-charon' });
        files.push({ target: IKE_FILES.swanctl, content: renderIkeSwanctl(systemRoot, includes), check: 'swanctl' });
      }
      files.push({ target: IKE_FILES.control, content: `${JSON.stringify({ enabled })}\n`, check: 'none' });
      return [{ domain: 'ike', files, dirs: enabled ? [IKE_RUN_DIR] : [] }];
    },
  };
}

// ---- strongSwan's settings grammar (strongswan.conf(5)), as the renderers write it ----

const SECTION = /^([A-Za-z0-9_-]+) \{$/;
const SETTING = /^([a-z_]+(?:-[a-z0-9_]+)*) = (\S(?:.*\S)?)$/;
const INCLUDE = /^include (\S+)$/;

export interface SettingsLine {
  kind: 'open' | 'close' | 'setting' | 'include';
  name?: string;
  key?: string;
  value?: string;
  depth: number;
  /** `line <n>`, for problems about it. */
  at: string;
}

/**
 * A rendered settings file parsed back, one construct a line: tab indentation that follows the
 * nesting, no quote, escape, comment, brace or reference inside a value. Problems are pushed.
 */
export function parseStrongswanSettings(content: string, problems: string[]): SettingsLine[] {
  if (!content.endsWith('\n')) problems.push('file does not end with a newline');
  const lines = content.split('\n');
  lines.pop();
  const parsed: SettingsLine[] = [];
  const open: string[] = [];
  lines.forEach((raw, index) => {
    const at = `line ${index + 1}`;
    if (!/^[\t\x20-\x7e]*$/.test(raw)) return problems.push(`${at}: not printable ASCII`);
    const line = raw.replace(/^\t*/, '');
    const indent = raw.length - line.length;
    if (line === '' || line.startsWith('# ')) return undefined;
    if (/["'\\#{}$]/.test(line.replace(/ \{$/, '').replace(/^\}$/, ''))) return problems.push(`${at}: quote, escape, comment, brace or reference inside a value`);
    if (line === '}') {
      if (!open.length) return problems.push(`${at}: unbalanced }`);
      open.pop();
      if (indent !== open.length) problems.push(`${at}: indentation does not follow nesting`);
      return parsed.push({ kind: 'close', depth: open.length, at });
    }
    if (indent !== open.length) return problems.push(`${at}: indentation does not follow nesting`);
    const section = SECTION.exec(line);
    if (section) {
      parsed.push({ kind: 'open', name: section[1]!, depth: open.length, at });
      open.push(section[1]!);
      return undefined;
    }
    const include = INCLUDE.exec(line);
    if (include) return parsed.push({ kind: 'include', value: include[1]!, depth: open.length, at });
    const setting = SETTING.exec(line);
    if (!setting) return problems.push(`${at}: not a section, setting or include`);
    return parsed.push({ kind: 'setting', key: setting[1]!, value: setting[2]!, depth: open.length, at });
  });
  if (open.length) problems.push(`unclosed section ${open.join('.')}`);
  return parsed;
}

const oneOf =
  (...values: string[]) =>
  (value: string) =>
    values.includes(value);

const CHARON_KEYS: Record<string, (value: string) => boolean> = {
  load: (value) => value === CHARON_PLUGINS,
  install_routes: oneOf('no'),
  i_dont_care_about_security_and_use_aggressive_mode_psk: oneOf('yes'),
  socket: (value) => /^unix:\/\/\/[A-Za-z0-9._/-]+\.vici$/.test(value) && !value.split('/').includes('..'),
  default: (value) => /^-?[0-4]$/.test(value),
  cfg: oneOf('0', '1'),
  net: oneOf('0'),
  enc: oneOf('0'),
  ike_name: oneOf('yes'),
};

/** The checker of charon's strongswan.conf: the settings grammar, the keys the renderer writes. */
export function checkCharonConf(content: string): string[] {
  const problems: string[] = [];
  const path: string[] = [];
  for (const line of parseStrongswanSettings(content, problems)) {
    if (line.kind === 'open') {
      if (path.length === 0 && line.name !== 'charon' && line.name !== 'charon-systemd') problems.push(`unknown top-level section ${line.name}`);
      path.push(line.name!);
    } else if (line.kind === 'close') path.pop();
    else if (line.kind === 'include') problems.push('include in charon configuration');
    else if (!path.length) problems.push(`setting ${line.key} outside a section`);
    else {
      const grammar = CHARON_KEYS[line.key!];
      if (!grammar) problems.push(`unknown setting ${line.key}`);
      else if (!grammar(line.value!)) problems.push(`value of ${line.key} not in its grammar`);
    }
  }
  return problems;
}
