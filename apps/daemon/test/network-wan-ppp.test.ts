import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { HOSTILE_STRINGS } from '@portico/schema/testing';
import { NETWORK_FILES } from '../src/domains/network/network-config.js';
import { DHCP_HOOK, WanDhcpSupervisor } from '../src/domains/network/network-wan-dhcp.js';
import { PPP_HOOKS, PPP_RECORD_DIR, pppHookOptions, pppSessionCommands, pppSessionOf, WanPppLinks, type PppWan } from '../src/domains/network/network-wan-ppp.js';
import { WanResolvFile } from '../src/domains/network/network-wan-resolv.js';
import { CONDITION_WAIT, recordingRunner, tempDir } from './daemon-harness.js';

/**
 * The PPPoE WANs' link hook: pppd's ip-up and ip-down scripts, run here for real as child
 * processes with the arguments and the environment pppd 2.4.9 gives them (only its variables
 * and those of its `set` options), over a temp install root. The daemon's side reads their
 * records and runs `ip` through a runner that records the commands; resolv.wan is shared with a
 * DHCP WAN whose udhcpc hook is run the same way.
 */

const FAKE_TOOLS = join(import.meta.dirname, 'fixtures', 'fake-dial-tools.mjs');
const MULTI: PppWan = { name: 'wan2', device: 'ppp-wan2', peerDns: true, table: 102, rulePriority: 10202 };
const SINGLE: PppWan = { name: 'dsl', device: 'ppp-dsl', peerDns: false };

/** Runs a program as pppd or udhcpc does: executed directly, no shell, the given environment only. */
function runProgram(path: string, args: readonly string[], env: Record<string, string>): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn(path, args, { env, stdio: 'ignore' });
    child.once('error', fail);
    child.once('exit', (code) => done(code ?? 1));
  });
}

/** The environment pppd's `set NAME=value` options add for its scripts. */
function setOptions(root: string): Record<string, string> {
  const options = pppHookOptions(root);
  const env: Record<string, string> = {};
  options.forEach((word, at) => {
    if (word !== 'set') return;
    const pair = options[at + 1]!;
    env[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1);
  });
  return env;
}

/** pppd's call of a hook: interface, tty, speed, local, remote, ipparam; its own variables. */
function pppHook(root: string, kind: 'up' | 'down', session: { ifname: string; local: string; remote: string; ipparam: string; pid: number; dns?: string[] }) {
  const env: Record<string, string> = {
    ...setOptions(root),
    IFNAME: session.ifname,
    IPLOCAL: session.local,
    IPREMOTE: session.remote,
    PPPD_PID: String(session.pid),
    LINKNAME: session.ipparam,
    DEVICE: 'eth1',
    SPEED: '0',
    ORIG_UID: '0',
    PPPLOGNAME: 'root',
  };
  session.dns?.forEach((server, at) => (env[`DNS${at + 1}`] = server));
  return runProgram(PPP_HOOKS[kind], [session.ifname, 'eth1', '0', session.local, session.remote, session.ipparam], env);
}

let stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops) await stop();
  stops = [];
});

function setUp() {
  const root = tempDir('portico-ppp-hook-root-');
  const { run, commands } = recordingRunner();
  const reports: string[] = [];
  const report = (error: unknown) => reports.push(String(error));
  const resolv = new WanResolvFile(root, NETWORK_FILES.wanResolv);
  const ppp = new WanPppLinks({ root, run, resolv, report });
  stops.push(() => ppp.stop());
  const resolvFile = join(root, NETWORK_FILES.wanResolv);
  const nameservers = () => (existsSync(resolvFile) ? readFileSync(resolvFile, 'utf8') : null);
  return { root, run, commands, reports, report, resolv, ppp, nameservers };
}

describe('the commands a PPP session becomes', () => {
  const session = { pid: 4242, local: '100.64.0.10', dns: [] };

  test('with multi-WAN: the WAN table routes through the PPP device, the source rule follows the address', () => {
    expect(pppSessionCommands(MULTI, session, null)).toEqual([
      ['ip', 'route', 'flush', 'table', '102'],
      ['ip', 'rule', 'del', 'priority', '10202'],
      ['ip', 'route', 'replace', 'default', 'dev', 'ppp-wan2', 'table', '102', 'proto', 'boot'],
      ['ip', 'rule', 'add', 'priority', '10202', 'from', '100.64.0.10', 'lookup', '102', 'protocol', 'boot'],
    ]);
    // The same address again (a re-apply put the route back): the rule stays.
    expect(pppSessionCommands(MULTI, session, session)).toEqual([['ip', 'route', 'replace', 'default', 'dev', 'ppp-wan2', 'table', '102', 'proto', 'boot']]);
    expect(pppSessionCommands(MULTI, null, session)).toEqual([
      ['ip', 'route', 'flush', 'table', '102'],
      ['ip', 'rule', 'del', 'priority', '10202'],
    ]);
  });

  test('without multi-WAN pppd routes by itself: no command', () => {
    expect(pppSessionCommands(SINGLE, session, null)).toEqual([]);
    expect(pppSessionCommands(SINGLE, null, session)).toEqual([]);
  });

  test('a hostile peer or record gets no string of its own into a command or the resolver file', () => {
    for (const text of HOSTILE_STRINGS) {
      const bad = { event: 'up', ifname: 'ppp-wan2', local: text, dns: [text], pid: 7 };
      if (pppSessionOf(MULTI, bad)) throw new Error(`accepted local ${JSON.stringify(text)}`);
      if (pppSessionOf(MULTI, { ...bad, local: '100.64.0.10', ifname: text })) throw new Error(`accepted ifname ${JSON.stringify(text)}`);
      const partial = pppSessionOf(MULTI, { ...bad, local: '100.64.0.10', dns: [text, 42, null] });
      expect(partial?.dns).toEqual([]);
      for (const argv of pppSessionCommands(MULTI, partial, null)) for (const arg of argv) expect(arg).toMatch(/^[a-z0-9.-]+$/);
    }
    // A WAN with configured DNS servers takes none from the ISP.
    expect(pppSessionOf({ ...MULTI, peerDns: false }, { event: 'up', ifname: 'ppp-wan2', local: '100.64.0.10', dns: ['198.51.100.1'] })?.dns).toEqual([]);
  });
});

describe("pppd's ip-up and ip-down scripts", () => {
  test('up: the WAN table route and source rule, the ISP DNS servers merged with a DHCP WAN’s; down: both removed', async () => {
    const { root, run, commands, reports, report, resolv, ppp, nameservers } = setUp();
    // A DHCP WAN beside it, its udhcpc a stand-in and its hook run as udhcpc runs it.
    const dhcp = new WanDhcpSupervisor({ root, run, resolv, spawnPrefix: [process.execPath, FAKE_TOOLS, tempDir('portico-ppp-tools-')], report });
    stops.push(() => dhcp.stop());
    dhcp.configure({ clients: [{ name: 'wan1', device: 'eth0', metric: 11, table: 101, rulePriority: 10201 }] });
    ppp.configure([MULTI]);
    const lease = { PORTICO_DHCP_DIR: join(root, 'run/portico/wan-dhcp'), PORTICO_WAN: 'wan1', ip: '203.0.113.50', mask: '24', router: '203.0.113.1', dns: '192.0.2.53' };
    expect(await runProgram(DHCP_HOOK, ['bound'], { ...lease, PATH: setOptions(root).PATH! })).toBe(0);
    await vi.waitFor(() => expect(nameservers()).toBe('nameserver 192.0.2.53\n'), CONDITION_WAIT);
    commands.length = 0;

    const up = { ifname: 'ppp-wan2', local: '100.64.0.10', remote: '100.64.0.1', ipparam: 'wan2', pid: 4242, dns: ['198.51.100.1', '198.51.100.2'] };
    expect(await pppHook(root, 'up', up)).toBe(0);
    await vi.waitFor(() => expect(nameservers()).toBe('nameserver 192.0.2.53\nnameserver 198.51.100.1\nnameserver 198.51.100.2\n'), CONDITION_WAIT);
    const applied = [
      ['ip', 'route', 'flush', 'table', '102'],
      ['ip', 'rule', 'del', 'priority', '10202'],
      ['ip', 'route', 'replace', 'default', 'dev', 'ppp-wan2', 'table', '102', 'proto', 'boot'],
      ['ip', 'rule', 'add', 'priority', '10202', 'from', '100.64.0.10', 'lookup', '102', 'protocol', 'boot'],
    ];
    expect(commands.splice(0)).toEqual(applied);

    // A network re-apply flushed the WAN tables: the session's routing is put back.
    await ppp.reapply();
    expect(commands.splice(0)).toEqual(applied);

    // The down of another pppd (one from before a restart) does not end this session.
    expect(await pppHook(root, 'down', { ...up, pid: 4141 })).toBe(0);
    await vi.waitFor(() => expect(reports).toEqual([expect.stringContaining('a link-down of another pppd')]), CONDITION_WAIT);
    expect(commands).toEqual([]);

    expect(await pppHook(root, 'down', up)).toBe(0);
    await vi.waitFor(() => expect(nameservers()).toBe('nameserver 192.0.2.53\n'), CONDITION_WAIT);
    expect(commands.splice(0)).toEqual([
      ['ip', 'route', 'flush', 'table', '102'],
      ['ip', 'rule', 'del', 'priority', '10202'],
    ]);
    expect(ppp.sessions()).toEqual([{ name: 'wan2', session: null }]);
    expect(reports).toHaveLength(1);
  });

  test('a single WAN with configured DNS: the session is taken, nothing routed, no ISP server written', async () => {
    const { root, commands, ppp, nameservers } = setUp();
    ppp.configure([SINGLE]);
    await vi.waitFor(() => expect(nameservers()).toBe(''), CONDITION_WAIT);
    expect(await pppHook(root, 'up', { ifname: 'ppp-dsl', local: '100.64.1.2', remote: '100.64.1.1', ipparam: 'dsl', pid: 99, dns: ['198.51.100.1'] })).toBe(0);
    await vi.waitFor(() => expect(ppp.sessions()).toEqual([{ name: 'dsl', session: { pid: 99, local: '100.64.1.2', dns: [] } }]), CONDITION_WAIT);
    expect(commands).toEqual([]);
    expect(nameservers()).toBe('');
  });

  test('hostile values from pppd or the peer: refused by the hook or by the daemon, never applied', async () => {
    const { root, commands, reports, ppp, nameservers } = setUp();
    ppp.configure([MULTI]);
    const records = join(root, PPP_RECORD_DIR);
    // An ipparam that is not a WAN name: the hook records nothing.
    for (const ipparam of ['../wan2', 'wan2\nx', 'Wan2', '']) {
      expect(await pppHook(root, 'up', { ifname: 'ppp-wan2', local: '100.64.0.10', remote: '100.64.0.1', ipparam, pid: 5 })).toBe(1);
    }
    expect(existsSync(join(records, 'wan2.json'))).toBe(false);
    // DNS values that are not addresses are dropped by the hook; a bad local address or a
    // foreign device makes the daemon ignore the record.
    const up = { ifname: 'ppp-wan2', local: '100.64.0.10', remote: '100.64.0.1', ipparam: 'wan2', pid: 6, dns: ['198.51.100.1; reboot', '198.51.100.9'] };
    expect(await pppHook(root, 'up', { ...up, local: '100.64.0.10 from all' })).toBe(0);
    await vi.waitFor(() => expect(reports).toHaveLength(1), CONDITION_WAIT);
    expect(await pppHook(root, 'up', { ...up, ifname: 'eth0' })).toBe(0);
    await vi.waitFor(() => expect(reports).toHaveLength(2), CONDITION_WAIT);
    expect(reports.every((text) => text.includes('without a valid device or address'))).toBe(true);
    expect(commands).toEqual([]);
    expect(await pppHook(root, 'up', up)).toBe(0);
    await vi.waitFor(() => expect(nameservers()).toBe('nameserver 198.51.100.9\n'), CONDITION_WAIT);
    expect(commands.at(-1)).toEqual(['ip', 'rule', 'add', 'priority', '10202', 'from', '100.64.0.10', 'lookup', '102', 'protocol', 'boot']);
  });

  test('a WAN removed while its session is up: its routing and DNS servers go at once', async () => {
    const { root, commands, ppp, nameservers } = setUp();
    ppp.configure([MULTI]);
    expect(await pppHook(root, 'up', { ifname: 'ppp-wan2', local: '100.64.0.10', remote: '100.64.0.1', ipparam: 'wan2', pid: 7, dns: ['198.51.100.1'] })).toBe(0);
    await vi.waitFor(() => expect(nameservers()).toBe('nameserver 198.51.100.1\n'), CONDITION_WAIT);
    commands.length = 0;
    ppp.configure([]);
    await vi.waitFor(() => expect(nameservers()).toBe(''), CONDITION_WAIT);
    expect(commands).toEqual([
      ['ip', 'route', 'flush', 'table', '102'],
      ['ip', 'rule', 'del', 'priority', '10202'],
    ]);
  });
});

describe('the WAN resolver file', () => {
  test('is readable by dnsmasq after it drops its privileges, whatever the daemon\'s umask', () => {
    const root = tempDir('portico-resolv-root-');
    const before = process.umask(0o077);
    try {
      new WanResolvFile(root, NETWORK_FILES.wanResolv).publish('wan', ['192.0.2.53']);
    } finally {
      process.umask(before);
    }
    const file = join(root, NETWORK_FILES.wanResolv);
    expect(readFileSync(file, 'utf8')).toBe('nameserver 192.0.2.53\n');
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o755);
  });
});
