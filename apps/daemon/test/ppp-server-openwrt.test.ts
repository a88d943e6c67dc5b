import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { createOpenwrtApplier } from '../src/config/apply-openwrt.js';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import type { RenderedFile } from '../src/engine/engine-types.js';
import { systemRegistry } from '../src/domain-list.js';
import { checkPppServerOptions, checkPptpdConf, checkXl2tpdConf, PPP_SERVER_FILES } from '../src/domains/ppp-server/ppp-server-files.js';
import { OPENWRT_PPP_FILES, OPENWRT_PPP_SERVER_INCLUDES, openwrtServerRunning } from '../src/domains/ppp-server/ppp-server-openwrt.js';
import { checkUci } from '../src/engine/uci-check.js';
import { parseUci } from '../src/engine/uci-format.js';
import { writeFw4Tree } from '../../../tests/packaging/openwrt/fw4-ruleset.js';
import { firewallSnapshot } from './firewall-fixture.js';
import { checkerAvailable } from './network-checker-run.js';

const work = mkdtempSync(join(tmpdir(), 'portico-openwrt-ppp-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const registry = systemRegistry({ driver: 'openwrt', stateDir: '/etc/portico' });

const L2TP = { enabled: true, localip: '10.0.30.1', remoteip: '10.0.30.10-10.0.30.20' };
const PPPOE = { enabled: true, interfaces: ['lan'], localip: '10.0.40.1', remoteip: '10.0.40.10-10.0.40.200' };

function snapshot(rows: Record<string, object>): ConfigSnapshot {
  return firewallSnapshot(rows);
}

function rendered(snap: ConfigSnapshot): Map<string, RenderedFile> {
  const files = registry.renderEach(['network', 'ppp-server'], snap).flatMap((entry) => entry.outputs ?? []).flatMap((o) => o.files);
  return new Map(files.map((f) => [f.target, f]));
}

describe('the PPP servers on OpenWrt, each under procd', () => {
  test('L2TP: xl2tpd’s own configuration file is the LNS pointing at the server’s pppd options', () => {
    const files = rendered(snapshot({ l2tpServer: L2TP }));
    const conf = files.get(OPENWRT_PPP_FILES.xl2tpd)!;
    expect(conf.content).toContain('[lns default]\nip range = 10.0.30.10-10.0.30.20\nlocal ip = 10.0.30.1\n');
    expect(conf.content).toContain(`pppoptfile = ${PPP_SERVER_FILES.options('l2tp')}\n`);
    expect(checkXl2tpdConf(conf.content)).toEqual([]);
    const options = files.get(PPP_SERVER_FILES.options('l2tp'))!;
    expect(options.content).toContain('name portico-l2tp\n');
    expect(checkPppServerOptions(options.content)).toEqual([]);
    for (const file of files.values()) expect(registry.formats.builtinCheck(file.check, file.content), file.target).toBeNull();
    // Not the linux driver's xl2tpd.conf; the switches, whose handler ends a stopped server's sessions.
    expect(files.has(PPP_SERVER_FILES.xl2tpd)).toBe(false);
    expect(JSON.parse(files.get(PPP_SERVER_FILES.control)!.content)).toEqual({ pptp: false, l2tp: true, pppoe: false });
  });

  test('L2TP off: xl2tpd keeps a configuration of its global part only (netifd’s L2TP clients need it running)', () => {
    const conf = rendered(snapshot({})).get(OPENWRT_PPP_FILES.xl2tpd)!;
    expect(conf.content).toBe('; Portico: no L2TP server (rendered, do not edit)\n[global]\nport = 1701\n');
    expect(checkXl2tpdConf(conf.content)).toEqual([]);
  });

  test('PPPoE: one pppoe_server section per device, the range shared out, the expired pool left out', () => {
    const one = rendered(snapshot({ pppoeServer: PPPOE })).get(OPENWRT_PPP_FILES.pppoe)!;
    expect(checkUci(one.content)).toBeNull();
    expect(parseUci(one.content)).toEqual([
      {
        type: 'pppoe_server',
        name: 'portico_0',
        options: { interface: 'br-lan', localip: '10.0.40.1', firstremoteip: '10.0.40.10', maxsessions: '191', optionsfile: PPP_SERVER_FILES.options('pppoe') },
      },
    ]);
    const two = parseUci(rendered(snapshot({ pppoeServer: { ...PPPOE, interfaces: ['lan', 'guest'], remindexpired: true } })).get(OPENWRT_PPP_FILES.pppoe)!.content);
    expect(two.map((s) => [s.options.interface, s.options.firstremoteip, s.options.maxsessions])).toEqual([
      ['br-lan', '10.0.40.10', '79'],
      ['eth3.20', '10.0.40.89', '79'],
    ]);
  });

  test('PPTP: the linux driver’s pptpd.conf and options, for the feed’s own init script (not the pptpd package’s)', () => {
    const files = rendered(snapshot({ pptpServer: { enabled: true, localip: '10.0.20.1', remoteip: '10.0.20.100-10.0.20.150' } }));
    const conf = files.get(PPP_SERVER_FILES.pptpd)!;
    expect(conf.content).toBe(`# Portico PPTP server (rendered, do not edit)\noption ${PPP_SERVER_FILES.options('pptp')}\nlocalip 10.0.20.1\nremoteip 10.0.20.100-150\n`);
    expect(checkPptpdConf(conf.content)).toEqual([]);
    expect(checkPppServerOptions(files.get(PPP_SERVER_FILES.options('pptp'))!.content)).toEqual([]);
    // Nothing of the pptpd package: its init script would link chap-secrets to a list of its own.
    expect([...files.keys()].some((t) => t.startsWith('/etc/config/pptpd') || t === '/etc/pptpd.conf' || t === '/etc/ppp/options.pptpd')).toBe(false);
    expect(files.get(OPENWRT_PPP_SERVER_INCLUDES.input)!.content).toContain('tcp dport 1723 accept\nip protocol gre accept\n');
  });

  test('a hostile value never reaches a file', () => {
    const base = snapshot({ l2tpServer: L2TP });
    const hostile = { ...base, l2tpServer: [{ id: '', data: { ...base.l2tpServer![0]!.data, localip: '10.0.30.1\n[lns evil]' } }] };
    expect(() => rendered(hostile)).toThrow();
  });

  test('fw4 includes: the servers’ ports, their sessions (never netifd’s pppoe-<wan>), the expired pool’s chains in fw4’s table', async () => {
    const files = rendered(snapshot({ l2tpServer: { ...L2TP, workmode: 'natmode' }, pppoeServer: { ...PPPOE, remindexpired: true } }));
    const input = files.get(OPENWRT_PPP_SERVER_INCLUDES.input)!.content;
    expect(input).toContain('udp dport 1701 accept\n');
    expect(input).toContain('iifname "ppp*" iifname != "pppoe-*" ip saddr 10.0.30.10-10.0.30.20 accept\n');
    expect(input).not.toContain('"ppp-*"');
    expect(files.get(OPENWRT_PPP_SERVER_INCLUDES.srcnat)!.content).toContain('ip saddr 10.0.30.10-10.0.30.20 oifname "pppoe-*" masquerade\n');
    const chains = files.get(OPENWRT_PPP_SERVER_INCLUDES.chains)!.content;
    expect(chains).toContain('chain ppp_expired_input {\n\ttype filter hook input priority -5; policy accept;\n');
    expect(chains).toContain('chain ppp_expired_redirect {\n');
    const none = rendered(snapshot({}));
    for (const target of Object.values(OPENWRT_PPP_SERVER_INCLUDES)) expect(none.has(target), target).toBe(false);
    if ((await checkerAvailable('nft')) && process.getuid?.() === 0) {
      const result = await execa('nft', ['-c', '-f', writeFw4Tree(files.values(), work)], { reject: false });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
    }
  });
});

describe('applying the PPP servers on OpenWrt', () => {
  let root: string;
  let commands: string[][];
  const run: CommandRunner = async (argv) => {
    commands.push([...argv]);
    return { exitCode: 0, stdout: '', stderr: '' };
  };
  beforeEach(() => {
    root = mkdtempSync(join(work, 'apply-'));
    commands = [];
  });
  const install = (...scripts: string[]) => {
    mkdirSync(join(root, 'etc/init.d'), { recursive: true });
    for (const script of scripts) writeFileSync(join(root, 'etc/init.d', script), '');
  };
  const applier = () => createOpenwrtApplier({ root, run, domains: registry });

  test('xl2tpd restarted and pppoe-server reloaded when their files change; a changed pppd option runs nothing', async () => {
    install('xl2tpd', 'pppoe-server');
    const openwrt = applier();
    await openwrt.apply(['ppp-server'], snapshot({ l2tpServer: L2TP, pppoeServer: PPPOE }));
    expect(commands).toEqual([
      ['/etc/init.d/pppoe-server', 'reload'],
      ['/etc/init.d/xl2tpd', 'restart'],
    ]);
    commands = [];
    await openwrt.apply(['ppp-server'], snapshot({ l2tpServer: { ...L2TP, mtu: 1400 }, pppoeServer: PPPOE }));
    expect(readFileSync(join(root, PPP_SERVER_FILES.options('l2tp')), 'utf8')).toContain('mtu 1400\n');
    expect(commands).toEqual([]);
    commands = [];
    await openwrt.apply(['ppp-server'], snapshot({ l2tpServer: L2TP }));
    expect(existsSync(join(root, OPENWRT_PPP_FILES.pppoe))).toBe(false);
    expect(existsSync(join(root, PPP_SERVER_FILES.options('pppoe')))).toBe(false);
    expect(commands).toEqual([['/etc/init.d/pppoe-server', 'reload']]);
  });

  test('PPTP: the feed’s init script reloaded on every change, removal included (it checks for pptpd itself)', async () => {
    const openwrt = applier();
    await openwrt.apply(['ppp-server'], snapshot({ pptpServer: { enabled: true } }));
    expect(existsSync(join(root, PPP_SERVER_FILES.pptpd))).toBe(true);
    expect(commands).toEqual([['/etc/init.d/portico-pptpd', 'reload']]);
    commands = [];
    await openwrt.apply(['ppp-server'], snapshot({ pptpServer: { enabled: false } }));
    expect(existsSync(join(root, PPP_SERVER_FILES.pptpd))).toBe(false);
    expect(commands).toEqual([['/etc/init.d/portico-pptpd', 'reload']]);
  });

  test('without the packages the files are kept and nothing runs', async () => {
    await applier().apply(['ppp-server'], snapshot({ l2tpServer: L2TP, pppoeServer: PPPOE }));
    expect(existsSync(join(root, OPENWRT_PPP_FILES.xl2tpd))).toBe(true);
    expect(existsSync(join(root, OPENWRT_PPP_FILES.pppoe))).toBe(true);
    expect(commands).toEqual([]);
  });
});

describe('a server’s status on OpenWrt, where procd runs it', () => {
  test('running when a process of its program is in /proc; a recycled or foreign pid does not count', () => {
    const kernel = mkdtempSync(join(work, 'kernel-'));
    const proc = (pid: number, comm: string) => {
      mkdirSync(join(kernel, 'proc', String(pid)), { recursive: true });
      writeFileSync(join(kernel, 'proc', String(pid), 'comm'), `${comm}\n`);
    };
    proc(1, 'procd');
    proc(812, 'xl2tpd');
    proc(901, 'pppoe-server-x');
    mkdirSync(join(kernel, 'proc', 'self'), { recursive: true });
    expect(openwrtServerRunning('l2tp', kernel)).toBe(true);
    expect(openwrtServerRunning('pppoe', kernel)).toBe(false);
    expect(openwrtServerRunning('pptp', kernel)).toBe(false);
    proc(977, 'pptpd');
    expect(openwrtServerRunning('pptp', kernel)).toBe(true);
    expect(openwrtServerRunning('pptp', join(work, 'no-such-tree'))).toBe(false);
  });
});
