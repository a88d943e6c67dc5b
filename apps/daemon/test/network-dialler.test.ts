import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { networkInterface, vpnClient } from '@portico/schema';
import { createLinuxApplier } from '../src/config/apply-linux.js';
import type { ConfigApplier } from '../src/config/config-types.js';
import { systemRegistry } from '../src/domain-list.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { SupervisedProcess, type Scheduler } from '../src/domains/network/network-child-process.js';
import { NETWORK_FILES } from '../src/domains/network/network-config.js';
import { IKE_FILES } from '../src/domains/network/network-ike.js';
import type { DialledLinks } from '../src/domains/network/network-dialled-links.js';
import { PppdSupervisor } from '../src/domains/network/network-pppd-supervisor.js';
import { SwanctlControl } from '../src/domains/network/network-swanctl-control.js';
import { Xl2tpdSupervisor } from '../src/domains/network/network-xl2tpd-supervisor.js';
import { renderPppSecret } from '../src/domains/network/network-vpn-pppd.js';
import { pppHookOptions } from '../src/domains/network/network-wan-ppp.js';
import { adminClient, CONDITION_WAIT, json, post, recordingRunner, startDaemon, tempDir, writeConfirmed, type Client, type Harness } from './daemon-harness.js';

/**
 * The linux driver's dialler, with stand-ins for pppd and xl2tpd (fixtures/fake-dial-tools.mjs,
 * run as the driver's spawn prefix) and a runner that records the swanctl commands: what is
 * started with which arguments and files, where the passwords go (descriptor 3 of pppd, and
 * nowhere in any argument vector or environment), what a change, a removal, a reconnect, an
 * exit and the daemon's stop do.
 */

const FAKE_TOOLS = join(import.meta.dirname, 'fixtures', 'fake-dial-tools.mjs');

interface Start {
  pid: number;
  command: string;
  argv: string[];
  env: Record<string, string>;
  fd3?: string | null;
  fd3Error?: string;
}

/** What the stand-ins recorded in their folder. */
class ToolRecords {
  readonly dir = tempDir('portico-dial-tools-');
  readonly prefix = [process.execPath, FAKE_TOOLS, this.dir];

  private read<T>(file: string): T[] {
    const path = join(this.dir, file);
    if (!existsSync(path)) return [];
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as T);
  }

  starts(command?: string): Start[] {
    return this.read<Start>('starts.jsonl').filter((start) => !command || start.command === command);
  }

  stopped(): Set<number> {
    return new Set(this.read<{ pid: number }>('stops.jsonl').map((stop) => stop.pid));
  }

  requests(pid: number): string[] {
    return this.read<{ pid: number; request: string }>('requests.jsonl')
      .filter((entry) => entry.pid === pid)
      .map((entry) => entry.request);
  }
}

/** A process that exited and was reaped has no /proc entry. */
const alive = (pid: number) => existsSync(`/proc/${pid}`);

/** Timers that fire only when the test says so. */
class ManualScheduler implements Scheduler {
  private time = 0;
  private tasks: Array<{ ms: number; at: number; task: () => void; live: boolean }> = [];

  after(ms: number, task: () => void): () => void {
    const entry = { ms, at: this.time + ms, task, live: true };
    this.tasks.push(entry);
    return () => void (entry.live = false);
  }

  now(): number {
    return this.time;
  }

  pending(): number[] {
    return this.tasks.filter((t) => t.live).map((t) => t.ms);
  }

  /** Lets `ms` pass: the tasks due by then run. */
  advance(ms: number): void {
    this.time += ms;
    for (const entry of this.tasks.filter((t) => t.live && t.at <= this.time)) {
      entry.live = false;
      entry.task();
    }
    this.tasks = this.tasks.filter((t) => t.live);
  }
}

const LAN = { ifname: 'lan', role: 'lan', hwport: ['eth2'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' };
const WAN = { ifname: 'wan', role: 'wan', hwport: ['eth0'], proto: 'static', ipaddr: '203.0.113.2', netmask: '255.255.255.0', gateway: '203.0.113.1' };
const PASSWORDS = {
  wanppp: `pp"oe \\ #1'x`,
  wanpptwo: 'second-Pass2',
  pptpone: 'pptp-Pass"3',
  l2tpone: 'l2tp-Pass4',
  l2tptwo: 'l2tp-Pass5',
  psk: 'ipsec-Psk6',
};
const NEW_PASSWORD = 'renewed-Pass7';
const ALL_SECRETS = [...Object.values(PASSWORDS), NEW_PASSWORD];

let h: Harness | undefined;
let applier: ConfigApplier | undefined;
afterEach(async () => {
  await applier?.stop?.();
  await h?.close();
  h = undefined;
  applier = undefined;
});

const write = (admin: Client, entity: { path: string }, body: Record<string, unknown>) => writeConfirmed(h!, admin, entity, body);

describe('the linux driver dials PPPoE WANs and VPN clients', () => {
  test('through the API and the linux applier: pppd, xl2tpd and swanctl start, follow changes, and stop', async () => {
    const tools = new ToolRecords();
    // The session the stand-in pppd of wanppp reports through its link hook once started.
    writeFileSync(join(tools.dir, 'ppp-sessions.json'), JSON.stringify({ wanppp: { local: '100.64.0.10', remote: '100.64.0.1', dns: ['198.51.100.1', '198.51.100.2'] } }));
    const root = tempDir('portico-dial-root-');
    const { run, commands } = recordingRunner();
    const reports: unknown[] = [];
    applier = createLinuxApplier({
      root,
      run,
      domains: systemRegistry({ driver: 'linux', systemRoot: root, qosDownload: 'lan' }),
      spawnPrefix: tools.prefix,
      report: (error) => reports.push(error),
    });
    h = await startDaemon({ deps: { config: { applier } } });
    const admin = await adminClient(h);
    await write(admin, networkInterface, { action: 'add', ...LAN });
    await write(admin, networkInterface, { action: 'add', ...WAN });
    const pppoe = (ifname: string, hwport: string, password: string) => ({
      action: 'add',
      ifname,
      role: 'wan',
      hwport: [hwport],
      proto: 'pppoe',
      pppoe_username: `user-${ifname}`,
      pppoe_password: password,
    });
    const wanppp = await write(admin, networkInterface, pppoe('wanppp', 'eth1', PASSWORDS.wanppp));
    const wanpptwo = await write(admin, networkInterface, pppoe('wanpptwo', 'eth3', PASSWORDS.wanpptwo));
    await write(admin, vpnClient, { action: 'add', type: 'pptp', name: 'pptpone', server: '198.51.100.80', username: 'pptp-user', password: PASSWORDS.pptpone });
    for (const name of ['l2tpone', 'l2tptwo'] as const) {
      await write(admin, vpnClient, { action: 'add', type: 'l2tp', name, server: '198.51.100.81', username: 'l2tp-user', password: PASSWORDS[name] });
    }
    const ipsec = await write(admin, vpnClient, { action: 'add', type: 'ipsec', name: 'ipsecone', server: '198.51.100.82', peer_subnets: '10.77.0.0/16', psk: PASSWORDS.psk });

    const links = () => JSON.parse(readFileSync(join(root, NETWORK_FILES.dialledLinks), 'utf8')) as DialledLinks;
    const optionsOf = (name: string) => join(root, links().pppd.find((link) => link.name === name)!.options);
    const pppdOf = (name: string) => tools.starts('pppd').filter((start) => start.argv[2] === optionsOf(name));
    const current = (name: string) => pppdOf(name).at(-1)!;

    // One pppd per PPPoE WAN and per PPTP client, in the foreground, with its options file; the
    // password arrives on descriptor 3 through the passwordfd plugin, exactly.
    await vi.waitFor(() => {
      for (const name of ['wanppp', 'wanpptwo', 'pptpone']) expect(pppdOf(name), name).toHaveLength(1);
    }, CONDITION_WAIT);
    for (const [name, password] of [
      ['wanppp', PASSWORDS.wanppp],
      ['wanpptwo', PASSWORDS.wanpptwo],
      ['pptpone', PASSWORDS.pptpone],
    ] as const) {
      const start = current(name);
      // A PPPoE WAN's pppd also runs the link hook, which records its sessions for the daemon.
      const hooks = name === 'pptpone' ? [] : pppHookOptions(root);
      expect(start.argv).toEqual(['pppd', 'file', optionsOf(name), 'nodetach', 'plugin', 'passwordfd.so', 'passwordfd', '3', ...hooks]);
      expect(start.fd3Error).toBeUndefined();
      expect(start.fd3).toBe(password);
    }
    // wanppp's link hook reported its session: with multi-WAN its table routes through its PPP
    // device and its address has its source rule; the ISP's DNS servers are in resolv.wan.
    const resolvWan = () => readFileSync(join(root, NETWORK_FILES.wanResolv), 'utf8');
    await vi.waitFor(() => expect(resolvWan()).toBe('nameserver 198.51.100.1\nnameserver 198.51.100.2\n'), CONDITION_WAIT);
    const policy = links().pppd.find((link) => link.name === 'wanppp')!.wan!;
    expect(policy).toEqual({ name: 'wanppp', device: 'ppp-wanppp', peerDns: true, table: 102, rulePriority: 10202 });
    expect(commands).toEqual(
      expect.arrayContaining([
        ['ip', 'route', 'replace', 'default', 'dev', 'ppp-wanppp', 'table', '102', 'proto', 'boot'],
        ['ip', 'rule', 'add', 'priority', '10202', 'from', '100.64.0.10', 'lookup', '102', 'protocol', 'boot'],
      ]),
    );
    expect(links().pppd.map((link) => [link.name, link.kind])).toEqual([
      ['wanppp', 'pppoe'],
      ['wanpptwo', 'pppoe'],
      ['pptpone', 'pptp'],
    ]);

    // xl2tpd in the foreground with the rendered configuration; once it reads its control FIFO,
    // each L2TP client is connected by name.
    const xl2tpd = () => tools.starts('xl2tpd').at(-1)!;
    await vi.waitFor(() => expect(tools.requests(xl2tpd().pid)).toEqual(['c l2tpone', 'c l2tptwo']), CONDITION_WAIT);
    expect(xl2tpd().argv).toEqual([
      'xl2tpd',
      '-D',
      '-c',
      join(root, NETWORK_FILES.xl2tpd),
      '-p',
      join(root, 'run/portico/xl2tpd.pid'),
      '-C',
      join(root, 'run/portico/xl2tpd.control'),
    ]);

    // strongSwan: the one charon started with the IKE domain's strongswan.conf, ready on its vici
    // socket, the top file (which includes the clients') loaded, then the client's child SA initiated.
    const swanctl = () => commands.filter((argv) => argv[0] === 'swanctl');
    const uri = ['--uri', `unix://${root}/run/portico/ike/charon.vici`];
    const loadAll = ['swanctl', '--load-all', '--noprompt', '--file', join(root, IKE_FILES.swanctl), ...uri];
    await vi.waitFor(() => expect(swanctl()).toEqual([['swanctl', '--stats', ...uri], loadAll, ['swanctl', '--initiate', '--child', 'vpnc-ipsecone', '--timeout', '10', ...uri]]), CONDITION_WAIT);
    // The stand-in records its start once running, which the runner's probe does not wait for.
    await vi.waitFor(() => expect(tools.starts('charon-systemd')).toHaveLength(1), CONDITION_WAIT);
    const charon = tools.starts('charon-systemd');
    expect(charon[0]!.env.STRONGSWAN_CONF).toBe(join(root, IKE_FILES.charon));

    // A changed options file restarts that WAN's pppd only; a changed password too, with the new one.
    const before = { wanppp: current('wanppp').pid, wanpptwo: current('wanpptwo').pid, pptpone: current('pptpone').pid };
    await write(admin, networkInterface, { action: 'update', id: wanppp, mtu: 1400 });
    await vi.waitFor(() => expect(pppdOf('wanppp')).toHaveLength(2), CONDITION_WAIT);
    expect(tools.stopped().has(before.wanppp)).toBe(true);
    expect(current('wanppp').fd3).toBe(PASSWORDS.wanppp);
    await write(admin, networkInterface, { action: 'update', id: wanppp, pppoe_password: NEW_PASSWORD });
    await vi.waitFor(() => expect(pppdOf('wanppp')).toHaveLength(3), CONDITION_WAIT);
    expect(current('wanppp').fd3).toBe(NEW_PASSWORD);
    expect([current('wanpptwo').pid, current('pptpone').pid]).toEqual([before.wanpptwo, before.pptpone]);
    expect(alive(before.wanpptwo) && alive(before.pptpone)).toBe(true);

    // The console's reconnect button: a fresh pppd for that WAN.
    expect(json(await post(h.app, admin, '/api/network/reconnect', { ifname: 'wanppp' }))).toEqual({ success: true, data: { ifname: 'wanppp' } });
    await vi.waitFor(() => expect(pppdOf('wanppp')).toHaveLength(4), CONDITION_WAIT);
    expect(current('wanppp').fd3).toBe(NEW_PASSWORD);

    // A removed WAN's pppd is stopped; a removed IPsec client's SA terminated and its configuration unloaded.
    const removed = current('wanpptwo').pid;
    await write(admin, networkInterface, { action: 'delete', id: wanpptwo });
    expect(tools.stopped().has(removed)).toBe(true);
    expect(alive(removed)).toBe(false);
    await write(admin, vpnClient, { action: 'delete', id: ipsec });
    // The last IPsec user gone: charon stops (its SAs with it), and the client's SA is terminated.
    await vi.waitFor(() => expect(swanctl().slice(3)).toEqual([['swanctl', '--terminate', '--ike', 'vpnc-ipsecone', '--force', ...uri]]), CONDITION_WAIT);
    expect(tools.stopped().has(charon[0]!.pid)).toBe(true);

    // No password on any command line or in any environment, of the services or of the commands run.
    const everyArgv = [...tools.starts().flatMap((start) => [start.argv.join(' '), JSON.stringify(start.env)]), ...commands.map((argv) => argv.join(' '))];
    for (const secret of ALL_SECRETS) for (const text of everyArgv) expect(text.includes(secret), secret).toBe(false);

    // The daemon's stop leaves no child behind.
    const pids = tools.starts().map((start) => start.pid);
    await applier.stop?.();
    applier = undefined;
    expect(pids.filter(alive)).toEqual([]);
    // The session's DNS servers left with it.
    expect(resolvWan()).toBe('');
    // Each ended on SIGTERM (pppd then closes its session), none needed SIGKILL.
    expect(pids.filter((pid) => !tools.stopped().has(pid))).toEqual([]);
    expect(reports.filter((error) => !String(error).includes('swanctl'))).toEqual([]);
  }, 120_000);
});

describe('restarts', () => {
  test('a pppd that exits is started again after the backoff, each time later; a stopped one is not', async () => {
    const tools = new ToolRecords();
    const root = tempDir('portico-dial-root-');
    const scheduler = new ManualScheduler();
    const reports: unknown[] = [];
    const pppd = new PppdSupervisor({ root, spawnPrefix: tools.prefix, scheduler, backoff: { firstMs: 1000, maxMs: 8000 }, report: (e) => reports.push(e) });
    const link = { name: 'wanppp', kind: 'pppoe' as const, options: '/etc/portico/ppp/wan2.options', secret: '/etc/portico/ppp/wan2.secret' };
    mkdirSync(join(root, 'etc/portico/ppp'), { recursive: true });
    writeFileSync(join(root, link.secret), renderPppSecret('Password of PPPoE WAN wanppp.', 'pass-Word1'), { mode: 0o600 });
    try {
      await pppd.configure([link], new Set());
      await vi.waitFor(() => expect(tools.starts('pppd')).toHaveLength(1), CONDITION_WAIT);
      for (const [round, delay] of [1000, 2000, 4000, 8000, 8000].entries()) {
        process.kill(tools.starts('pppd').at(-1)!.pid, 'SIGUSR2');
        await vi.waitFor(() => expect(scheduler.pending()).toEqual([delay]), CONDITION_WAIT);
        // Nothing starts before the backoff has passed.
        scheduler.advance(delay - 1);
        expect(tools.starts('pppd')).toHaveLength(round + 1);
        scheduler.advance(1);
        await vi.waitFor(() => expect(tools.starts('pppd')).toHaveLength(round + 2), CONDITION_WAIT);
        expect(tools.starts('pppd').at(-1)!.fd3).toBe('pass-Word1');
      }
      expect(reports).toHaveLength(5);
      // A pppd that stops while its restart waits is not started again.
      process.kill(tools.starts('pppd').at(-1)!.pid, 'SIGUSR2');
      await vi.waitFor(() => expect(scheduler.pending()).toHaveLength(1), CONDITION_WAIT);
      await pppd.stop();
      expect(scheduler.pending()).toEqual([]);
    } finally {
      await pppd.stop();
    }
    expect(tools.starts().map((start) => start.pid).filter(alive)).toEqual([]);
  });

  test('a service whose program is missing is reported and tried again after the backoff', async () => {
    const scheduler = new ManualScheduler();
    const reports: unknown[] = [];
    const missing = new SupervisedProcess({ name: 'pppd of wanppp', argv: [join(tempDir('portico-dial-bin-'), 'pppd')], fd3: () => 'x', scheduler, report: (e) => reports.push(e) });
    missing.start();
    await vi.waitFor(() => expect(scheduler.pending()).toEqual([1000]), CONDITION_WAIT);
    expect(String(reports[0])).toContain('pppd of wanppp ended (spawn');
    await missing.stop();
    expect(scheduler.pending()).toEqual([]);
  });

  test('an xl2tpd that exits is started again and connects every L2TP client again', async () => {
    const tools = new ToolRecords();
    const root = tempDir('portico-dial-root-');
    mkdirSync(join(root, 'run/portico'), { recursive: true });
    const scheduler = new ManualScheduler();
    const xl2tpd = new Xl2tpdSupervisor({ root, spawnPrefix: tools.prefix, scheduler });
    const links = { config: NETWORK_FILES.xl2tpd, lacs: [{ name: 'office', files: [] }, { name: 'branch', files: [] }] };
    try {
      await xl2tpd.configure(links, new Set());
      await vi.waitFor(() => expect(tools.requests(tools.starts('xl2tpd').at(-1)!.pid)).toEqual(['c office', 'c branch']), CONDITION_WAIT);
      process.kill(tools.starts('xl2tpd').at(-1)!.pid, 'SIGUSR2');
      await vi.waitFor(() => expect(scheduler.pending()).toEqual([1000]), CONDITION_WAIT);
      scheduler.advance(1000);
      await vi.waitFor(() => expect(tools.starts('xl2tpd')).toHaveLength(2), CONDITION_WAIT);
      await vi.waitFor(() => expect(tools.requests(tools.starts('xl2tpd').at(-1)!.pid)).toEqual(['c office', 'c branch']), CONDITION_WAIT);
      // Its configuration changed: restarted at once. No L2TP client left: stopped.
      await xl2tpd.configure(links, new Set([NETWORK_FILES.xl2tpd]));
      await vi.waitFor(() => expect(tools.starts('xl2tpd')).toHaveLength(3), CONDITION_WAIT);
      await xl2tpd.configure(null, new Set());
      expect(tools.starts('xl2tpd').map((start) => start.pid).filter(alive)).toEqual([]);
      expect(tools.stopped().has(tools.starts('xl2tpd').at(-1)!.pid)).toBe(true);
    } finally {
      await xl2tpd.stop();
    }
  });
});

describe('IPsec through swanctl', () => {
  test('initiate; a changed file terminates and initiates again; no client left terminates', async () => {
    const commands: string[][] = [];
    const run: CommandRunner = async (argv) => {
      commands.push([...argv]);
      return { exitCode: 0, stdout: '', stderr: '' };
    };
    const swanctl = new SwanctlControl({ run, ike: { uri: 'unix:///r/charon.vici' } });
    const links = { config: NETWORK_FILES.swanctl, files: [NETWORK_FILES.swanctl, NETWORK_FILES.swanctlSecrets], children: ['hq', 'branch'] };
    const uri = ['--uri', 'unix:///r/charon.vici'];
    const initiate = (name: string) => ['swanctl', '--initiate', '--child', name, '--timeout', '10', ...uri];
    const terminate = (name: string) => ['swanctl', '--terminate', '--ike', name, '--force', ...uri];

    // The IKE daemon loaded the connections already: the clients only initiate.
    swanctl.configure(links, new Set(links.files));
    await swanctl.stop();
    expect(commands.splice(0)).toEqual([initiate('hq'), initiate('branch')]);

    // Nothing of IPsec changed in this pass: nothing runs.
    swanctl.configure(links, new Set([NETWORK_FILES.nftables]));
    await swanctl.stop();
    expect(commands).toEqual([]);

    swanctl.configure({ ...links, children: ['hq'] }, new Set([NETWORK_FILES.swanctl]));
    await swanctl.stop();
    expect(commands.splice(0)).toEqual([terminate('hq'), terminate('branch'), initiate('hq')]);

    swanctl.configure(null, new Set());
    await swanctl.stop();
    expect(commands.splice(0)).toEqual([terminate('hq')]);
  });
});
