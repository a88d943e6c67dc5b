import { accessSync, chmodSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { ENTITIES, writeSchema } from '@portico/schema';
import { DAEMON_NODE_FLAGS } from '../../apps/daemon/launch-flags.mjs';
import { NETWORK_HOOK_FILES } from '../../apps/daemon/dist-files.mjs';
import type { ConfigSnapshot, SnapshotRow } from '../../apps/daemon/src/config/config-types.js';
import { factorySnapshot } from '../../apps/daemon/src/config/factory-defaults.js';
import { systemRegistry } from '../../apps/daemon/src/domain-list.js';
import type { CommandRunner } from '../../apps/daemon/src/engine/command-runner.js';
import type { RenderedFile } from '../../apps/daemon/src/engine/engine-types.js';
import { activationHandlers, reloadList } from '../../apps/daemon/src/config/domain-module.js';
import { checkUci } from '../../apps/daemon/src/engine/uci-check.js';
import { parseUci } from '../../apps/daemon/src/engine/uci-format.js';
import { FW4_INCLUDES, writeFw4Tree } from './openwrt/fw4-ruleset.js';

/**
 * The OpenWrt package feed (openwrt/) against what it packages: its Makefile run with stand-ins
 * of OpenWrt's rules.mk and package.mk, its shell scripts through the shells and shellcheck, its
 * init script run with procd's functions recorded, and what the daemon's openwrt driver renders
 * for a representative configuration checked with nft and the UCI checker, every service it
 * reloads and command it runs tied to a package the feed depends on.
 */

const repo = join(import.meta.dirname, '..', '..');
const feed = join(repo, 'openwrt', 'portico');
const files = join(feed, 'files');
const stubs = join(import.meta.dirname, 'openwrt');
const work = mkdtempSync(join(tmpdir(), 'portico-openwrt-feed-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SHELL_SCRIPTS = ['portico.init', 'portico-pptpd.init', 'portico.uci-defaults'] as const;
/** Init scripts of the feed's own: file under files/ -> name under /etc/init.d. */
const FEED_INIT_SCRIPTS = { 'portico.init': 'portico', 'portico-pptpd.init': 'portico-pptpd' } as const;

function onPath(tool: string): boolean {
  return ['/usr/bin', '/bin', '/usr/sbin', '/sbin'].some((dir) => {
    try {
      accessSync(join(dir, tool), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const isRoot = process.getuid?.() === 0;

// ---------------------------------------------------------------------------------------------
// The Makefile, evaluated by make itself over stand-ins of OpenWrt's rules.mk and package.mk.

/** make in the package folder, as OpenWrt runs it, with the stand-in TOPDIR. */
function makeIn(args: readonly string[], vars: Record<string, string> = {}) {
  return execa('make', ['-C', feed, `TOPDIR=${join(stubs, 'topdir')}`, ...Object.entries(vars).map(([k, v]) => `${k}=${v}`), ...args], { reject: false });
}

async function makeVariable(name: string): Promise<string> {
  const result = await makeIn(['-s', 'print', `VAR=${name}`]);
  if (result.exitCode !== 0) throw new Error(result.stderr);
  return result.stdout.trim();
}

const words = (text: string) => text.split(/\s+/).filter(Boolean);

/** PORTICO_USES.<package> of dependencies.mk, as kind -> values. */
async function usesOf(pkg: string): Promise<Map<string, string[]>> {
  const uses = new Map<string, string[]>();
  for (const word of words(await makeVariable(`PORTICO_USES.${pkg}`))) {
    const [kind, value] = [word.slice(0, word.indexOf(':')), word.slice(word.indexOf(':') + 1)];
    uses.set(kind, [...(uses.get(kind) ?? []), value]);
  }
  return uses;
}

interface FeedPackages {
  required: string[];
  optional: string[];
  /** `kind:value` -> the package bringing it. */
  provider: Map<string, string>;
}

async function feedPackages(): Promise<FeedPackages> {
  const required = words(await makeVariable('PORTICO_REQUIRED'));
  const optional = words(await makeVariable('PORTICO_OPTIONAL'));
  const provider = new Map<string, string>();
  for (const pkg of [...required, ...optional]) {
    for (const [kind, values] of await usesOf(pkg)) for (const value of values) provider.set(`${kind}:${value}`, pkg);
  }
  return { required, optional, provider };
}

describe('the feed’s Makefile', () => {
  const text = readFileSync(join(feed, 'Makefile'), 'utf8');

  it('follows OpenWrt’s package layout: rules.mk first, package.mk after the PKG_ variables, BuildPackage last', () => {
    const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
    expect(lines[0]).toBe('include $(TOPDIR)/rules.mk');
    expect(lines.at(-1)).toBe('$(eval $(call BuildPackage,portico))');
    const packageMk = lines.indexOf('include $(INCLUDE_DIR)/package.mk');
    for (const name of ['PKG_NAME', 'PKG_VERSION', 'PKG_RELEASE', 'PKG_LICENSE', 'PKG_MAINTAINER', 'PKG_BUILD_DEPENDS']) {
      const at = lines.findIndex((line) => line.startsWith(`${name}:=`));
      expect(at, `${name} is set before package.mk`).toBeGreaterThanOrEqual(0);
      expect(at).toBeLessThan(packageMk);
    }
    for (const block of ['Package/portico', 'Package/portico/description', 'Package/portico/conffiles', 'Build/Prepare', 'Build/Compile', 'Package/portico/install']) {
      expect(lines, block).toContain(`define ${block}`);
    }
  });

  it('has the project’s name, version and licence, a release, a maintainer and the package fields', async () => {
    const rootPackage = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { name: string; version?: string; license?: string };
    const daemonPackage = JSON.parse(readFileSync(join(repo, 'apps/daemon/package.json'), 'utf8')) as { version: string };
    expect(await makeVariable('PKG_NAME')).toBe(rootPackage.name);
    expect(await makeVariable('PKG_VERSION')).toBe(rootPackage.version ?? daemonPackage.version);
    expect(await makeVariable('PKG_VERSION')).toBe(daemonPackage.version);
    expect(await makeVariable('PKG_RELEASE')).toMatch(/^[1-9][0-9]*$/);
    // npm's word for "no licence granted" when package.json names none.
    expect(await makeVariable('PKG_LICENSE')).toBe(rootPackage.license ?? 'UNLICENSED');
    expect(await makeVariable('PKG_MAINTAINER')).toMatch(/^[^<>]+ <[^<>@\s]+@[^<>\s]+>$/);
    expect(await makeVariable('PKG_BUILD_DEPENDS')).toBe('node/host');
    const definition = await makeVariable('Package/portico');
    for (const field of ['SECTION', 'CATEGORY', 'TITLE', 'URL', 'DEPENDS']) expect(definition).toMatch(new RegExp(`^\\s*${field}:=\\S`, 'm'));
  });

  it('depends on exactly the required packages of dependencies.mk, each listed once, none also optional', async () => {
    const { required, optional } = await feedPackages();
    const definition = await makeVariable('Package/portico');
    const depends = words(/^\s*DEPENDS:=(.*)$/m.exec(definition)![1]!);
    expect(depends).toEqual(required.map((pkg) => `+${pkg}`));
    expect(new Set([...required, ...optional]).size).toBe(required.length + optional.length);
    // The Makefile takes its list from the data file: no package is named in it.
    for (const pkg of [...required, ...optional]) expect(text, pkg).not.toMatch(new RegExp(`[+\\s]${pkg.replace(/[-+.]/g, '\\$&')}(\\s|$)`, 'm'));
    for (const pkg of [...required, ...optional]) expect((await usesOf(pkg)).size, `PORTICO_USES.${pkg}`).toBeGreaterThan(0);
  });

  it('ships only what `npm run build` produces or the feed holds', async () => {
    // The daemon's entry point as its package.json starts it; the rest as build.mjs writes them.
    const daemonPackage = JSON.parse(readFileSync(join(repo, 'apps/daemon/package.json'), 'utf8')) as { scripts: Record<string, string> };
    const entry = /^node (\S+)$/.exec(daemonPackage.scripts.start!)![1]!;
    const buildScript = readFileSync(join(repo, 'apps/daemon/build.mjs'), 'utf8');
    const produced = new Set([
      `apps/daemon/${entry}`,
      ...(buildScript.includes("sourcemap: 'linked'") ? [`apps/daemon/${entry}.map`] : []),
      ...[...buildScript.matchAll(/join\(here, 'dist', '([^']+)'\)/g)].map((m) => `apps/daemon/dist/${m[1]}`),
      ...NETWORK_HOOK_FILES.map(({ file }) => `apps/daemon/dist/${file}`),
      ...['console', 'portal'].filter((app) => /build:\s*{[^}]*outDir: 'dist'/s.test(readFileSync(join(repo, 'apps', app, 'vite.config.ts'), 'utf8'))).map((app) => `apps/${app}/dist`),
    ]);
    const shipped = [...words(await makeVariable('PORTICO_DAEMON_FILES')), await makeVariable('PORTICO_CONSOLE_DIST'), await makeVariable('PORTICO_PORTAL_DIST')];
    for (const path of shipped) expect(produced, `${path} is produced by the build`).toContain(path);
    // The node modules come from the installed tree (pnpm's hoisted links).
    for (const module of words(await makeVariable('PORTICO_NODE_MODULES'))) {
      expect(existsSync(join(repo, 'node_modules/.pnpm/node_modules', module, 'package.json')), module).toBe(true);
    }
    const recipe = await makeIn(['-n', 'install']);
    expect(recipe.exitCode, recipe.stderr).toBe(0);
    for (const [, source] of recipe.stdout.matchAll(/\s\.\/files\/(\S+)/g)) expect(existsSync(join(files, source!)), source).toBe(true);
  });

  it('prepares and installs a package root whose layout is the one the init script starts', async () => {
    // The source tree: the real build outputs where `npm run build` has run, else stand-ins at
    // the same paths (their contents are not the package's concern here).
    const source = join(work, 'source');
    for (const path of [...words(await makeVariable('PORTICO_DAEMON_FILES')), await makeVariable('PORTICO_CONSOLE_DIST'), await makeVariable('PORTICO_PORTAL_DIST')]) {
      const real = join(repo, path);
      mkdirSync(dirname(join(source, path)), { recursive: true });
      if (existsSync(real)) {
        symlinkSync(real, join(source, path));
      } else if (path.endsWith('dist') || path.endsWith('isp')) {
        mkdirSync(join(source, path), { recursive: true });
        writeFileSync(join(source, path, 'index.html'), '');
      } else {
        writeFileSync(join(source, path), '');
      }
    }
    symlinkSync(join(repo, 'node_modules'), join(source, 'node_modules'));
    const root = join(work, 'ipkg-root');
    const made = await makeIn(['prepare', 'install'], { PORTICO_SOURCE: source, BUILD_DIR: join(work, 'build'), IPKG_ROOT: root });
    expect(made.exitCode, made.stderr).toBe(0);

    const init = readFileSync(join(files, 'portico.init'), 'utf8');
    const lib = /^PORTICO_LIB=(\S+)$/m.exec(init)![1]!;
    expect(lib).toBe(await makeVariable('PORTICO_LIB'));
    expect(existsSync(join(root, lib, 'daemon', 'main.mjs'))).toBe(true);
    expect(existsSync(join(root, lib, 'console'))).toBe(true);
    expect(existsSync(join(root, lib, 'portal'))).toBe(true);
    // Node finds better-sqlite3 from the bundle's folder upwards: <lib>/node_modules.
    for (const module of words(await makeVariable('PORTICO_NODE_MODULES'))) expect(existsSync(join(root, lib, 'node_modules', module, 'package.json')), module).toBe(true);
    expect(existsSync(join(root, lib, 'node_modules/better-sqlite3/build')), 'the host’s addon is not shipped').toBe(false);
    expect(statSync(join(root, 'etc/init.d/portico')).mode & 0o777).toBe(0o755);
    expect(statSync(join(root, 'etc/init.d/portico-pptpd')).mode & 0o777).toBe(0o755);
    expect(statSync(join(root, 'etc/uci-defaults/90-portico')).mode & 0o111).not.toBe(0);
    expect(statSync(join(root, 'etc/config/portico')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(root, 'lib/upgrade/keep.d/portico'), 'utf8').trim()).toBe(/^STATE_DIR=(\S+)$/m.exec(init)![1] + '/');
    const conffiles = await makeVariable('Package/portico/conffiles');
    expect(words(conffiles)).toEqual(['/etc/config/portico', `${/^STATE_DIR=(\S+)$/m.exec(init)![1]}/`]);
  });
});

// ---------------------------------------------------------------------------------------------
// Shell scripts: OpenWrt runs them with BusyBox ash.

describe('the feed’s shell scripts', () => {
  const shells = [['sh'], ['dash'], ...(existsSync('/bin/busybox') ? [['busybox', 'sh']] : [])] as const;
  for (const script of SHELL_SCRIPTS) {
    for (const shell of shells) {
      it(`${script} parses with ${shell.join(' ')} -n`, async () => {
        const result = await execa(shell[0]!, [...shell.slice(1), '-n', join(files, script)], { reject: false });
        expect(result.stderr).toBe('');
        expect(result.exitCode).toBe(0);
      });
    }
  }

  /**
   * Exclusions, each for a construct OpenWrt's shell has that POSIX sh lacks:
   * - SC3043 `local`: BusyBox ash (and dash) have it; every OpenWrt init script uses it.
   */
  const SHELLCHECK_EXCLUDE = ['SC3043'];
  it.skipIf(!onPath('shellcheck'))('init and uci-defaults pass shellcheck -s sh (skipped when shellcheck is not installed: apt-get install shellcheck)', async () => {
    // The init scripts are checked as rc.common runs them: after procd's functions, with the
    // variables rc.common reads used.
    const wrappers = Object.keys(FEED_INIT_SCRIPTS).map((init) => {
      const wrapper = join(work, `${init}-as-rc-common.sh`);
      const defined = readFileSync(join(files, init), 'utf8');
      const calls = ['start_service', 'reload_service', 'service_triggers'].filter((fn) => defined.includes(`${fn}() {`));
      writeFileSync(
        wrapper,
        [
          '#!/bin/sh',
          `# shellcheck source=${join(stubs, 'procd-stub.sh')}`,
          `. ${join(stubs, 'procd-stub.sh')}`,
          `# shellcheck source=${join(files, init)}`,
          `. ${join(files, init)}`,
          ': "$START" "$STOP" "$USE_PROCD"',
          calls.join('; '),
          '',
        ].join('\n'),
      );
      return wrapper;
    });
    for (const target of [...wrappers, join(files, 'portico.uci-defaults')]) {
      const result = await execa('shellcheck', ['-s', 'sh', '-x', '-e', SHELLCHECK_EXCLUDE.join(','), target], { reject: false });
      expect(result.stdout, target).toBe('');
      expect(result.exitCode).toBe(0);
    }
  });
  if (!onPath('shellcheck')) {
    it('shellcheck is not installed: the shellcheck check above was skipped', () => {
      console.warn('openwrt-feed: shellcheck is not installed (apt-get install shellcheck); init and uci-defaults were not shellchecked');
      expect(onPath('shellcheck')).toBe(false);
    });
  }
});

/** An init script (portico.init unless said) run under a shell with procd's functions recorded; returns the calls. */
async function runInit(shell: readonly string[], config: string, calls: string, init = 'portico.init'): Promise<string[][]> {
  const dir = mkdtempSync(join(work, 'init-'));
  writeFileSync(join(dir, 'portico'), config);
  const log = join(dir, 'procd.log');
  writeFileSync(log, '');
  const script = `. "$STUB"; . "$INIT"; ${calls}`;
  const result = await execa(shell[0]!, [...shell.slice(1), '-c', script], {
    reject: false,
    env: { STUB: join(stubs, 'procd-stub.sh'), INIT: join(files, init), PROCD_LOG: log, UCI_CONFIG_DIR: dir },
  });
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => line.split('\t'));
}

const SAMPLE_CONFIG = [
  "config portico 'main'",
  "\toption enabled '1'",
  "\toption port '8443'",
  "\toption portal_port '2060'",
  "\toption log_level 'debug'",
  "\tlist lan_ports 'lan1'",
  "\tlist lan_ports 'lan2'",
  "\tlist wan_ports 'wan'",
  '',
].join('\n');

describe('the init script under procd', () => {
  const shells = [['dash'], ...(existsSync('/bin/busybox') ? [['busybox', 'sh']] : [])] as const;
  for (const shell of shells) {
    it(`${shell.join(' ')}: start_service runs node on the bundle with the driver, the state folder and the settings of /etc/config/portico`, async () => {
      const calls = await runInit(shell, SAMPLE_CONFIG, 'start_service');
      expect(calls[0]).toEqual(['config_load', 'portico']);
      const params = new Map(calls.filter((c) => c[0] === 'procd_set_param').map((c) => [c[1]!, c.slice(2)]));
      expect(calls.map((c) => c[0])).toEqual(['config_load', 'procd_open_instance', ...Array(params.size).fill('procd_set_param'), 'procd_close_instance']);
      const init = readFileSync(join(files, 'portico.init'), 'utf8');
      const lib = /^PORTICO_LIB=(\S+)$/m.exec(init)![1]!;
      expect(params.get('command')).toEqual(['/usr/bin/node', ...DAEMON_NODE_FLAGS, '--enable-source-maps', `${lib}/daemon/main.mjs`]);
      const env = Object.fromEntries(params.get('env')!.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
      expect(env).toEqual({
        PORTICO_DRIVER: 'openwrt',
        PORTICO_STATE_DIR: '/etc/portico',
        PORTICO_PORT: '8443',
        PORTICO_PORTAL_PORT: '2060',
        PORTICO_WIRELESS_PORT: '15002',
        PORTICO_LOG_LEVEL: 'debug',
        PORTICO_LAN_PORTS: 'lan1 lan2',
        PORTICO_WAN_PORTS: 'wan',
        PORTICO_CONSOLE_DIR: `${lib}/console`,
        PORTICO_PORTAL_DIR: `${lib}/portal`,
      });
      // Every variable it sets is one the daemon reads (apps/daemon/src/settings.ts).
      const settings = readFileSync(join(repo, 'apps/daemon/src/settings.ts'), 'utf8');
      for (const name of Object.keys(env)) expect(settings, name).toMatch(new RegExp(`env\\.${name}\\b|'${name}'`));
      expect(params.get('respawn')).toEqual(['3600', '5', '5']);
      expect(params.get('stdout')).toEqual(['1']);
      expect(params.get('stderr')).toEqual(['1']);
      expect(params.get('file')).toEqual(['/etc/config/portico']);
    });

    it(`${shell.join(' ')}: the defaults apply without options; a disabled daemon starts no instance`, async () => {
      const defaults = await runInit(shell, "config portico 'main'\n", 'start_service');
      const env = defaults.find((c) => c[0] === 'procd_set_param' && c[1] === 'env')!.slice(2);
      expect(env).toContain('PORTICO_PORT=8080');
      expect(env).toContain('PORTICO_PORTAL_PORT=2050');
      expect(env).toContain('PORTICO_WIRELESS_PORT=15002');
      expect(env).toContain('PORTICO_LAN_PORTS=');
      const disabled = await runInit(shell, "config portico 'main'\n\toption enabled '0'\n", 'start_service');
      expect(disabled.map((c) => c[0])).toEqual(['config_load']);
    });

    it(`${shell.join(' ')}: a change of /etc/config/portico reloads it, and reload sends the instance again`, async () => {
      const calls = await runInit(shell, SAMPLE_CONFIG, 'service_triggers; reload_service');
      expect(calls).toEqual([['procd_add_reload_trigger', 'portico'], ['start']]);
    });
  }
});

describe('the PPTP server’s init script under procd', () => {
  const shells = [['dash'], ...(existsSync('/bin/busybox') ? [['busybox', 'sh']] : [])] as const;
  for (const shell of shells) {
    it(`${shell.join(' ')}: pptpd in the foreground on the rendered settings, restarted when they change; none without them or without pptpd`, async () => {
      const dir = mkdtempSync(join(work, 'pptpd-'));
      const conf = join(dir, 'pptpd.conf');
      const pptpd = join(dir, 'pptpd');
      writeFileSync(conf, '');
      writeFileSync(pptpd, '');
      chmodSync(pptpd, 0o755);
      const set = (c: string, p: string) => `CONF=${c}; PPTPD=${p}; start_service`;
      const calls = await runInit(shell, '', set(conf, pptpd), 'portico-pptpd.init');
      expect(calls).toEqual([
        ['procd_open_instance'],
        ['procd_set_param', 'command', pptpd, '--fg', '-c', conf],
        ['procd_set_param', 'respawn'],
        ['procd_set_param', 'file', conf],
        ['procd_close_instance'],
      ]);
      const init = readFileSync(join(files, 'portico-pptpd.init'), 'utf8');
      expect(/^CONF=(\S+)$/m.exec(init)![1]).toBe('/etc/portico/ppp-server/pptpd.conf');
      expect(await runInit(shell, '', set(join(dir, 'absent.conf'), pptpd), 'portico-pptpd.init')).toEqual([]);
      expect(await runInit(shell, '', set(conf, join(dir, 'absent')), 'portico-pptpd.init')).toEqual([]);
      expect(await runInit(shell, '', 'reload_service', 'portico-pptpd.init')).toEqual([['start']]);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// What the package installs the daemon to do: the openwrt driver's files for a representative
// configuration, checked as the device's tools would take them.

function rowOf(entity: string, id: string, input: Record<string, unknown>): SnapshotRow {
  const found = ENTITIES.find((e) => e.name === entity);
  if (!found) throw new Error(`no entity ${entity}`);
  const collection = found.kind === 'collection';
  const parsed = writeSchema(found, collection ? 'add' : 'update').safeParse(input);
  if (!parsed.success) throw new Error(`${entity}: ${JSON.stringify(parsed.error.issues)}`);
  return { id: collection ? id : '', data: { ...(parsed.data as object), ...(collection ? { id } : {}) } };
}

/**
 * The factory network of a board with DSA ports, then a PPPoE WAN, a guest VLAN, a bonded LAN,
 * a firewall rule and a port mapping, Smart QoS with port and domain routes over two WANs,
 * IPTV through the IGMP proxy, L2TP, PPTP and IPsec clients, the time zone and NTP, the host
 * name, remote access, the OpenVPN server, the IPsec server with a peer, the PPTP, L2TP/IPsec and
 * PPPoE servers, and a hotspot zone.
 */
function representativeSnapshot(): ConfigSnapshot {
  const factory = factorySnapshot({ lan: ['lan1', 'lan2'], wan: ['wan'] });
  return {
    ...factory,
    networkInterface: [
      ...factory.networkInterface!,
      rowOf('networkInterface', 'wan2', { ifname: 'wan2', role: 'wan', hwport: ['lan4'], proto: 'pppoe', pppoe_username: 'user@isp', pppoe_password: 'secret-1', vlan_tag: 35 }),
      rowOf('networkInterface', 'office', { ifname: 'office', role: 'bond', hwport: ['lan5', 'lan6'], ipaddr: '10.0.0.1', netmask: '255.255.0.0' }),
      rowOf('networkInterface', 'tv', { ifname: 'tv', role: 'lan', hwport: ['lan3'], ipaddr: '172.16.6.1', netmask: '255.255.255.0' }),
    ],
    vlan: [rowOf('vlan', 'guest', { ifname: 'guest', port: 'lan2', tag: 20, ipaddr: '192.168.20.1', netmask: '255.255.255.0' })],
    multiWan: [
      rowOf('multiWan', 'mw1', { interface: 'wan', mode: 'balance', weight: 3, track_ips: ['198.51.100.1'] }),
      rowOf('multiWan', 'mw2', { interface: 'wan2', mode: 'balance', weight: 1, track_ips: ['203.0.113.1'] }),
    ],
    iptv: [rowOf('iptv', '', { enable: true, type: 'igmp', wan: 'wan', wantag: 45, portnum: 'lan3' })],
    vpnClient: [
      rowOf('vpnClient', 'office', { type: 'l2tp', name: 'office', server: 'vpn.example.com', username: 'branch1', password: 'tunnel-pass' }),
      rowOf('vpnClient', 'branch', { type: 'pptp', name: 'branch', server: '203.0.113.80', username: 'pptp.user', password: 'p' }),
      rowOf('vpnClient', 'hq', { type: 'ipsec', name: 'hq', server: '198.51.100.9', peer_subnets: '10.50.0.0/16', psk: 'pre-shared key 1' }),
    ],
    firewallAcl: [rowOf('firewallAcl', 'telnet', { name: 'no telnet', direction: 'forward', target: 'reject', proto: 'tcp', dport: '23' })],
    firewallPortMapping: [rowOf('firewallPortMapping', 'web', { name: 'web', proto: 'tcp', wan: 'wan', extport: 8080, intip: '192.168.11.10', intport: 80 })],
    qosBase: [rowOf('qosBase', '', { qos: true, qosmode: 'smart', p2pblock: true, balance: true })],
    qosIpRule: [rowOf('qosIpRule', 'desk', { name: 'desk', usernet: '192.168.11.20', upspeed1: 2000, downspeed1: 8000 })],
    qosPortRule: [rowOf('qosPortRule', 'ssh', { name: 'ssh out wan2', proto: 'tcp', dport: ['2222'], target: 'express', userule: true, interface: 'wan2' })],
    qosDomainRule: [rowOf('qosDomainRule', 'video', { name: 'video', dest_domain: ['video.example.com'], target: 'bulk', userule: true, interface: 'wan' })],
    qosLoadBalance: [
      rowOf('qosLoadBalance', 'lb1', { interface: 'wan', weight: 3, upbandwidth: 20000, downbandwidth: 100000, isp: 'default' }),
      rowOf('qosLoadBalance', 'lb2', { interface: 'wan2', weight: 1, upbandwidth: 10000, downbandwidth: 50000, isp: 'default' }),
    ],
    systemTime: [rowOf('systemTime', '', { timezone: 'Europe/Berlin', ntp_client: true, ntp_servers: ['pool.ntp.org'], ntp_server: true })],
    systemHost: [rowOf('systemHost', '', { hostname: 'edge-gw' })],
    remoteAccess: [rowOf('remoteAccess', '', { enabled: true, port: 8443, allowed_ips: ['198.51.100.0/24'], wan_ping: true })],
    openvpnServer: [rowOf('openvpnServer', '', { enabled: true, host: 'vpn.example.com' })],
    ipsecPeer: [rowOf('ipsecPeer', 'branch', { name: 'branch', remote_addr: '198.51.100.20', local_subnets: '192.168.11.0/24', peer_subnets: '10.60.0.0/16', psk: 'peer-key-1' })],
    pptpServer: [rowOf('pptpServer', '', { enabled: true })],
    l2tpServer: [rowOf('l2tpServer', '', { enabled: true, ipsec: true, psk: 'l2tp-shared-key' })],
    pppoeServer: [rowOf('pppoeServer', '', { enabled: true, interfaces: ['lan'] })],
    hotspotZone: [rowOf('hotspotZone', 'guests', { name: 'guests', ifname: 'tv', authmodel: 'webportal', authtime: 1, authtime_unit: 'days' })],
    hotspotWhitelist: [rowOf('hotspotWhitelist', 'w1', { type: 'url', value: 'portal.example.com' })],
  };
}

describe('what the openwrt driver renders, as the packaged system takes it', () => {
  const registry = systemRegistry({ driver: 'openwrt' });
  const rendered: RenderedFile[] = registry.render(registry.renderable(), representativeSnapshot()).flatMap((output) => output.files);
  const byTarget = new Map(rendered.map((file) => [file.target, file]));
  const commands: string[][] = [];
  const run: CommandRunner = async (argv) => {
    commands.push([...argv]);
    return { exitCode: 0, stdout: '', stderr: '' };
  };
  const activations = registry.activations('openwrt', { root: work, run });
  const handlerFor = activationHandlers(activations);
  const reloadsFor = (target: string) => activations.map((a) => reloadList(a.reloadFor?.(target))).find((list) => list.length > 0) ?? [];

  it('renders every part of the configuration: UCI packages, fw4 includes, swanctl, sysctl and tc files', () => {
    const targets = [...byTarget.keys()];
    for (const target of ['/etc/config/network', '/etc/config/dhcp', '/etc/config/firewall', '/etc/config/mwan3', '/etc/config/igmpproxy', '/etc/config/system', '/etc/config/openvpn', '/etc/swanctl/conf.d/portico.conf', '/etc/portico/qos.tc']) {
      expect(targets, target).toContain(target);
    }
    expect(targets.filter((t) => t.startsWith(FW4_INCLUDES)).length).toBeGreaterThan(3);
    expect(rendered.every((file) => file.content.length > 0)).toBe(true);
  });

  it('every file passes its format’s own check, every UCI package the UCI checker', () => {
    for (const file of rendered) {
      expect(registry.formats.builtinCheck(file.check, file.content), file.target).toBeNull();
      if (file.target.startsWith('/etc/config/')) expect(checkUci(file.content), file.target).toBeNull();
    }
  });

  it.skipIf(!onPath('nft') || !isRoot)('every fw4 include passes nft -c inside a ruleset of fw4’s shape, all together (skipped without nft or root)', async () => {
    const result = await execa('nft', ['-c', '-f', writeFw4Tree(rendered, work)], { reject: false });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });
  if (!onPath('nft') || !isRoot) {
    it('nft or root is missing: the fw4 include check above was skipped', () => {
      console.warn(`openwrt-feed: fw4 includes not checked with nft -c (${onPath('nft') ? 'not root' : 'nft is not installed'})`);
      expect(onPath('nft') && isRoot).toBe(false);
    });
  }

  it('every file is made live on the device: by a module’s handler or by the service that reads it', () => {
    for (const file of rendered) expect(Boolean(handlerFor(file)) || reloadsFor(file.target).length > 0, `nothing makes ${file.target} live`).toBe(true);
  });

  it('every service reloaded, command run and netifd protocol written comes from a package of the feed; optional reloads from optional packages', async () => {
    const { required, optional, provider } = await feedPackages();
    const needed: Array<{ what: string; optional: boolean }> = [];
    for (const file of rendered) {
      const handler = handlerFor(file);
      if (handler) {
        commands.length = 0;
        await handler(file, join(work, 'live', file.target));
        needed.push(...commands.map((argv) => ({ what: `command:${argv[0]}`, optional: false })));
        continue;
      }
      for (const reload of reloadsFor(file.target)) {
        const kind = reload.argv[0]!.startsWith('/etc/init.d/') ? 'service' : 'command';
        needed.push({ what: `${kind}:${reload.argv[0]}`, optional: Boolean(reload.optional) });
      }
    }
    // The checkers the engine runs on the device before installing a file; a file whose
    // services all come from optional packages is checked by a tool of those packages.
    for (const file of rendered) {
      const checker = registry.formats.get(file.check).command?.(file.target);
      const reloads = reloadsFor(file.target);
      if (checker) needed.push({ what: `command:${checker[0]}`, optional: reloads.length > 0 && reloads.every((r) => r.optional) });
    }
    // netifd's protocol handlers the network package names.
    const network = parseUci(byTarget.get('/etc/config/network')!.content);
    for (const section of network) {
      const proto = section.options.proto;
      if (section.type === 'interface' && typeof proto === 'string') needed.push({ what: `proto:${proto}`, optional: !['static', 'dhcp', 'pppoe', 'none', 'dhcpv6'].includes(proto) });
    }
    // The program the init script starts.
    needed.push({ what: `command:${/^NODE=(\S+)$/m.exec(readFileSync(join(files, 'portico.init'), 'utf8'))![1]}`, optional: false });

    // The feed's own init scripts come with the package itself.
    const own = new Set(Object.values(FEED_INIT_SCRIPTS).map((name) => `service:/etc/init.d/${name}`));
    for (const { what, optional: isOptional } of needed) {
      if (own.has(what)) continue;
      const pkg = provider.get(what);
      expect(pkg, `no package of dependencies.mk brings ${what}`).toBeDefined();
      expect(isOptional ? optional : required, `${what} (${pkg})`).toContain(pkg);
    }
    // Every service listed is one the driver reloads for this configuration.
    const services = [...provider.keys()].filter((key) => key.startsWith('service:'));
    expect(services.sort()).toEqual([...new Set(needed.map((n) => n.what).filter((w) => w.startsWith('service:') && !own.has(w)))].sort());
  });

  it('the kernel modules the Smart QoS script uses come from a required package', async () => {
    const { required, provider } = await feedPackages();
    const script = byTarget.get('/etc/portico/qos.tc')!.content;
    const MODULE_OF: Record<string, RegExp> = {
      sch_htb: /\bhtb\b/,
      sch_ingress: /\bingress\b/,
      cls_u32: /\bu32\b/,
      cls_bpf: /\bbpf\b/,
      act_mirred: /\bmirred\b/,
      act_ctinfo: /\bctinfo\b/,
      ifb: /\bifb\d*\b/,
    };
    const used = Object.entries(MODULE_OF).filter(([, pattern]) => pattern.test(script)).map(([module]) => module);
    // On OpenWrt download is shaped on the LAN side: HTB trees classified by BPF, no IFB.
    expect(used).toEqual(['sch_htb', 'cls_bpf']);
    for (const module of used) expect(required, module).toContain(provider.get(`kernel:${module}`));
  });
});

describe('the feed’s README', () => {
  const readme = readFileSync(join(repo, 'openwrt', 'README.md'), 'utf8');

  it('points at the one list of dependencies instead of repeating it, and says what is not checked here', async () => {
    expect(readme).toContain('portico/dependencies.mk');
    expect(readme).toMatch(/## What is not checked/);
    const { required, optional } = await feedPackages();
    // A package named in the README is one of the list (no stale names).
    for (const [, name] of readme.matchAll(/`((?:kmod|ppp-mod|strongswan)-[a-z0-9-]+)`/g)) expect([...required, ...optional], name).toContain(name);
  });

  it('names the install paths the Makefile uses', async () => {
    expect(readme).toContain(await makeVariable('PORTICO_LIB'));
  });
});
