import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { NETWORK_FILES } from '../src/domains/network/network-config.js';
import type { DialledLinks, PppdLink } from '../src/domains/network/network-dialled-links.js';
import { stopLeftover } from '../src/domains/network/network-leftover-processes.js';
import { LinkDialler } from '../src/domains/network/network-link-dialler.js';
import { pppdArgvOf } from '../src/domains/network/network-pppd-supervisor.js';
import { renderPppSecret } from '../src/domains/network/network-vpn-pppd.js';
import { Xl2tpdSupervisor } from '../src/domains/network/network-xl2tpd-supervisor.js';
import { CONDITION_WAIT, tempDir } from './daemon-harness.js';

/**
 * The pppd and xl2tpd an earlier run of the daemon left running (it was killed with SIGKILL)
 * are found by their pid files and stopped before the first dial, with stand-ins
 * (fixtures/fake-dial-tools.mjs) writing those pid files; a pid file naming a process that is
 * not what the daemon would have run leaves that process alone.
 */

const FAKE_TOOLS = join(import.meta.dirname, 'fixtures', 'fake-dial-tools.mjs');
const alive = (pid: number) => existsSync(`/proc/${pid}`);
const noRun: CommandRunner = async () => ({ exitCode: 0, stdout: '', stderr: '' });

let started: ChildProcess[] = [];
let dialler: LinkDialler | undefined;
afterEach(async () => {
  await dialler?.stop();
  dialler = undefined;
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  started = [];
});

/** A process this test starts on its own, as the earlier run of the daemon did (or anything else). */
function startProcess(argv: readonly string[], env: Record<string, string> = {}): number {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore', env: { ...process.env, ...env } });
  started.push(child);
  return child.pid!;
}

function setUp() {
  const root = tempDir('portico-leftover-root-');
  const pidDir = tempDir('portico-leftover-run-');
  const records = tempDir('portico-leftover-tools-');
  const prefix = [process.execPath, FAKE_TOOLS, records];
  mkdirSync(join(root, 'etc/portico/ppp'), { recursive: true });
  mkdirSync(join(root, 'run/portico'), { recursive: true });
  const link = (name: string, slot: string, kind: PppdLink['kind']): PppdLink => {
    const options = `${NETWORK_FILES.pppDir}/${slot}.options`;
    const secret = `${NETWORK_FILES.pppDir}/${slot}.secret`;
    writeFileSync(join(root, options), `linkname ${name}\nifname ppp-${name}\n`);
    writeFileSync(join(root, secret), renderPppSecret(`Password of ${name}.`, 'pass-Word1'), { mode: 0o600 });
    return { name, kind, options, secret, ...(kind === 'pppoe' ? { wan: { name, device: `ppp-${name}`, peerDns: true } } : {}) };
  };
  const starts = (command: string) =>
    (existsSync(join(records, 'starts.jsonl')) ? readFileSync(join(records, 'starts.jsonl'), 'utf8').split('\n').filter(Boolean) : [])
      .map((line) => JSON.parse(line) as { pid: number; command: string; argv: string[] })
      .filter((start) => start.command === command);
  const stopped = () => (existsSync(join(records, 'stops.jsonl')) ? readFileSync(join(records, 'stops.jsonl'), 'utf8') : '');
  return { root, pidDir, prefix, link, starts, stopped };
}

describe('services an earlier run of the daemon left running', () => {
  test('are stopped before the first dial (SIGTERM, then SIGKILL for one that hangs); an unrelated process named by a stale pid file survives', async () => {
    const { root, pidDir, prefix, link, starts, stopped } = setUp();
    const wan = link('wanppp', 'wan1', 'pppoe');
    const pptp = link('pptpone', 'vpn1', 'pptp');
    const l2tp = { config: NETWORK_FILES.xl2tpd, lacs: [] };
    const xl2tpdArgv = new Xl2tpdSupervisor({ root }).service(l2tp.config).argv;

    // The earlier run's pppd of the WAN, hung (it ignores SIGTERM), and its xl2tpd.
    const oldPppd = startProcess([...prefix, ...pppdArgvOf(root, wan)], { FAKE_PPP_PID_DIR: pidDir, FAKE_IGNORE_SIGTERM: '1' });
    const oldXl2tpd = startProcess([...prefix, ...xl2tpdArgv]);
    // The PPTP client's pid file is stale: its pid now belongs to an unrelated process.
    const unrelated = startProcess([process.execPath, '-e', 'setInterval(() => undefined, 1000)']);
    writeFileSync(join(pidDir, 'ppp-pptpone.pid'), `${unrelated}\nppp0\n`);
    await vi.waitFor(() => {
      expect(readFileSync(join(pidDir, 'ppp-wanppp.pid'), 'utf8')).toBe(`${oldPppd}\nppp-wanppp\n`);
      expect(readFileSync(join(root, 'run/portico/xl2tpd.pid'), 'utf8')).toBe(`${oldXl2tpd}\n`);
    }, CONDITION_WAIT);

    const reports: string[] = [];
    dialler = new LinkDialler({ root, run: noRun, spawnPrefix: prefix, pppPidDir: pidDir, report: (e) => reports.push(String(e)), ike: { uri: 'unix:///nowhere.vici' } });
    const links: DialledLinks = { pppd: [wan, pptp], l2tp, ipsec: null };
    dialler.describe(links);
    await dialler.afterPass([]);

    // Gone before anything was dialled: the xl2tpd on SIGTERM, the hung pppd on SIGKILL.
    await vi.waitFor(() => expect([oldPppd, oldXl2tpd].filter(alive)).toEqual([]), CONDITION_WAIT);
    expect(stopped()).toContain(`"pid":${oldXl2tpd}`);
    expect(stopped()).not.toContain(`"pid":${oldPppd}`);
    expect(alive(unrelated)).toBe(true);
    expect(reports.sort()).toEqual([
      `Error: pppd (pid ${oldPppd}) left running by an earlier run of the daemon was stopped`,
      `Error: xl2tpd (pid ${oldXl2tpd}) left running by an earlier run of the daemon was stopped`,
    ]);

    // Then the daemon's own: one pppd per link, one xl2tpd.
    await vi.waitFor(() => {
      const pppd = starts('pppd').filter((start) => start.pid !== oldPppd);
      expect(pppd.map((start) => start.argv.slice(0, 3)).sort()).toEqual([pppdArgvOf(root, pptp), pppdArgvOf(root, wan)].map((argv) => argv.slice(0, 3)).sort());
      expect(starts('xl2tpd').filter((start) => start.pid !== oldXl2tpd)).toHaveLength(1);
    }, CONDITION_WAIT);

    // A later pass does not look again: the running pppd are the daemon's own.
    await dialler.afterPass([]);
    expect(reports).toHaveLength(2);
    expect(starts('pppd').filter((start) => start.pid !== oldPppd).every((start) => alive(start.pid))).toBe(true);
  });

  test('a pid file names nothing, garbage, or a process running another argument vector: nothing is signalled', async () => {
    const { root, pidDir, prefix, link } = setUp();
    const wan = link('wanppp', 'wan1', 'pppoe');
    const other = link('wanother', 'wan2', 'pppoe');
    const service = { pidFile: join(pidDir, 'ppp-wanppp.pid'), argv: pppdArgvOf(root, wan) };
    expect(await stopLeftover(service, { spawnPrefix: prefix })).toBeNull();
    writeFileSync(service.pidFile, 'not a pid\n');
    expect(await stopLeftover(service, { spawnPrefix: prefix })).toBeNull();
    // The same program with another options file is another link's pppd.
    const another = startProcess([...prefix, ...pppdArgvOf(root, other)], { FAKE_PPP_PID_DIR: pidDir });
    await vi.waitFor(() => expect(existsSync(join(pidDir, 'ppp-wanother.pid'))).toBe(true), CONDITION_WAIT);
    writeFileSync(service.pidFile, `${another}\n`);
    expect(await stopLeftover(service, { spawnPrefix: prefix })).toBeNull();
    // Without the spawn prefix the stand-in is not what the daemon runs either.
    writeFileSync(service.pidFile, readFileSync(join(pidDir, 'ppp-wanother.pid')));
    expect(await stopLeftover({ ...service, argv: pppdArgvOf(root, other) })).toBeNull();
    expect(alive(another)).toBe(true);
    // Its own service, named right, is stopped.
    expect(await stopLeftover({ ...service, argv: pppdArgvOf(root, other) }, { spawnPrefix: prefix })).toBe(another);
    await vi.waitFor(() => expect(alive(another)).toBe(false), CONDITION_WAIT);
  });
});
