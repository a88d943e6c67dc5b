import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import type { DriverEnv } from '../src/config/domain-module.js';
import { checkCharonConf, IKE_FILES, ikeDomain, renderCharonConf, type IkeUser } from '../src/domains/network/network-ike.js';
import { ikeDaemonOf } from '../src/domains/network/network-ike-daemon.js';
import { NETWORK_FILES } from '../src/domains/network/network-config.js';
import { checkSwanctl } from '../src/domains/network/network-vpn-swanctl.js';
import { IPSEC_FILES } from '../src/domains/vpn-server/vpn-server-ipsec.js';
import { ipsecLinuxActivation, readIpsecServerLog } from '../src/domains/vpn-server/vpn-server-ipsec-runtime.js';

const server: IkeUser = {
  entities: ['ipsecPeer'],
  connections: '/etc/portico/ipsec-server/swanctl.conf',
  active: (snapshot) => (snapshot.ipsecPeer ?? []).length > 0,
  aggressivePsk: (snapshot) => (snapshot.ipsecPeer ?? []).some((row) => row.data.ipsec_mode === 'aggressive'),
};
const client = { id: 'c1', data: { name: 'hq', type: 'ipsec', enabled: true } };
const peer = (mode: string) => ({ id: 'p1', data: { name: 'branch', ipsec_mode: mode } });

function render(snapshot: ConfigSnapshot, root = '/') {
  const [output] = ikeDomain(root, [server]).render!(snapshot);
  return { files: new Map(output!.files.map((file) => [file.target, file])), dirs: output!.dirs };
}

describe('the one IKE daemon: its files', () => {
  test('nothing uses IPsec: only the control file, saying stopped', () => {
    const { files, dirs } = render({ vpnClient: [{ id: 'c1', data: { name: 'hq', type: 'ipsec', enabled: false } }] });
    expect([...files.keys()]).toEqual([IKE_FILES.control]);
    expect(files.get(IKE_FILES.control)!.content).toBe('{"enabled":false}\n');
    expect(dirs).toEqual([]);
  });

  test('clients and the server share one top file, which includes both; each passes its checker', () => {
    const { files, dirs } = render({ vpnClient: [client], ipsecPeer: [peer('main')] });
    const top = files.get(IKE_FILES.swanctl)!;
    expect(top.content).toContain(`include ${NETWORK_FILES.swanctl}\ninclude ${server.connections}\n`);
    expect(checkSwanctl(top.content)).toEqual([]);
    const charon = files.get(IKE_FILES.charon)!.content;
    expect(charon).toContain('socket = unix:///run/portico/ike/charon.vici');
    expect(charon).not.toContain('aggressive_mode_psk');
    expect(checkCharonConf(charon)).toEqual([]);
    expect(files.get(IKE_FILES.control)!.content).toBe('{"enabled":true}\n');
    expect(dirs).toEqual(['/run/portico/ike']);
  });

  test("aggressive mode PSK is allowed only while a user asks; paths follow the system root", () => {
    const { files } = render({ ipsecPeer: [peer('aggressive')] }, '/tmp/root');
    expect(files.get(IKE_FILES.charon)!.content).toContain('i_dont_care_about_security_and_use_aggressive_mode_psk = yes');
    expect(files.get(IKE_FILES.charon)!.content).toContain('socket = unix:///tmp/root/run/portico/ike/charon.vici');
    // Only the server: the clients' file is not included.
    expect(files.get(IKE_FILES.swanctl)!.content).toContain(`include /tmp/root${server.connections}\n`);
    expect(files.get(IKE_FILES.swanctl)!.content).not.toContain(NETWORK_FILES.swanctl);
  });

  test('the checkers refuse what charon or swanctl would read differently', () => {
    expect(() => renderCharonConf('/tmp/a b', false)).toThrow();
    expect(checkCharonConf(renderCharonConf('/', false).replace('default = 1', 'default = 4\n\t\t\tpath = /etc/passwd'))).not.toEqual([]);
    expect(checkCharonConf(`${renderCharonConf('/', false)}include /etc/x.conf\n`)).not.toEqual([]);
    expect(() => ikeDomain('/', [{ ...server, connections: '/etc/x y.conf' }]).render!({ ipsecPeer: [peer('main')] })).toThrow();
  });
});

/** A stand-in for charon that stays up and says one line, as charon does on stderr. */
const fakeCharon = (said = '00[DMN] Starting IKE charon daemon\\n') => [process.execPath, '-e', `process.stderr.write('${said}'); setInterval(() => {}, 1000)`];

function harness(run: DriverEnv['run'], charon = fakeCharon()) {
  const root = mkdtempSync(join(tmpdir(), 'portico-ike-'));
  const env: DriverEnv = { root, run };
  const ike = ikeDaemonOf(env, { charon });
  const serverActivation = ipsecLinuxActivation(env);
  return { root, env, ike, serverActivation, close: async () => (await ike.stop(), rmSync(root, { recursive: true, force: true })) };
}

describe('the one IKE daemon: the network and the IPsec server on one charon', () => {
  test('every user changed in one pass: ONE load of the top file; restart only when charon\'s file changed; off stops it', async () => {
    const commands: string[][] = [];
    const run = async (argv: readonly string[]) => {
      commands.push([...argv]);
      return { exitCode: 0, stdout: '', stderr: '' };
    };
    const { root, env, ike, serverActivation, close } = harness(run);
    const serverFile = (target: string) => serverActivation.activate![target]!({ target, content: '', check: 'none' }, join(root, target));
    const loads = () => commands.filter((argv) => argv[1] === '--load-all');
    const probes = () => commands.filter((argv) => argv[1] === '--stats').length;
    try {
      // The server's activation shares the network's daemon (same applier, same env).
      expect(ikeDaemonOf(env)).toBe(ike);
      // A first pass: the IKE files (noted by the network's handlers) and the server's.
      ike.note({ restart: true });
      ike.note({ load: true });
      ike.note({ enabled: true });
      await serverFile(IPSEC_FILES.connections);
      await serverFile(IPSEC_FILES.secrets);
      await ike.flush(); // the network's afterPass
      await serverActivation.afterPass!([]); // the server's: nothing left to do
      expect(loads()).toEqual([['swanctl', '--load-all', '--noprompt', '--file', join(root, IKE_FILES.swanctl), '--uri', `unix://${root}/run/portico/ike/charon.vici`]]);
      expect(ike.running()).toBe(true);
      // charon's output lands in the one bounded IPsec log, stamped.
      await expect.poll(async () => (await readIpsecServerLog(root)).lines.some((line) => line.endsWith('Starting IKE charon daemon')), { timeout: 10_000 }).toBe(true);
      const probed = probes();
      // Only the server's peers changed: one load on the same charon.
      await serverFile(IPSEC_FILES.connections);
      await ike.flush();
      await serverActivation.afterPass!([]);
      expect(loads()).toHaveLength(2);
      expect(probes()).toBe(probed);
      // charon's own file changed: a new charon, loaded once.
      ike.note({ restart: true });
      await ike.flush();
      expect(loads()).toHaveLength(3);
      expect(probes()).toBeGreaterThan(probed);
      // A pass with nothing of IKE in it does nothing.
      await ike.flush();
      await serverActivation.afterPass!([]);
      expect(loads()).toHaveLength(3);
      // The last user gone: charon stops, nothing is loaded.
      ike.note({ enabled: false });
      await ike.flush();
      expect(loads()).toHaveLength(3);
      expect(ike.running()).toBe(false);
    } finally {
      await close();
    }
  });

  test('a refused load fails the apply with what swanctl said', async () => {
    const run = async (argv: readonly string[]) =>
      argv[1] === '--load-all' ? { exitCode: 1, stdout: 'loading connection branch1 failed: invalid value', stderr: 'plugin noise' } : { exitCode: 0, stdout: '', stderr: '' };
    const { ike, serverActivation, close } = harness(run);
    try {
      ike.note({ enabled: true });
      await expect(serverActivation.afterPass!([])).rejects.toThrow(/swanctl --load-all failed: loading connection branch1 failed/);
      expect(ike.running()).toBe(false);
    } finally {
      await close();
    }
  });

  test('a charon that could not bind the IKE ports (a system charon holds them) fails the apply and is stopped', async () => {
    const commands: string[][] = [];
    let root = '';
    const run = async (argv: readonly string[]) => {
      commands.push([...argv]);
      // Answers only once charon has said what it says while starting.
      return { exitCode: (await readIpsecServerLog(root)).present ? 0 : 1, stdout: '', stderr: '' };
    };
    const said = '00[NET] unable to bind socket: Address already in use\\n00[NET] could not open IPv4 socket, IPv4 disabled\\n00[NET] could not create any sockets\\n';
    const h = harness(run, fakeCharon(said));
    root = h.root;
    try {
      h.ike.note({ enabled: true });
      await expect(h.ike.flush()).rejects.toThrow(/could not bind UDP 500\/4500/);
      expect(commands.some((argv) => argv[1] === '--load-all')).toBe(false);
      expect(h.ike.running()).toBe(false);
    } finally {
      await h.close();
    }
  });

  test('without strongSwan installed the apply fails and says charon could not be started', async () => {
    const run = async () => ({ exitCode: 1, stdout: '', stderr: 'connecting failed' });
    const h = harness(run, ['/nonexistent/charon-systemd']);
    try {
      h.ike.note({ enabled: true });
      await expect(h.ike.flush()).rejects.toThrow(/charon exited: [\s\S]*ENOENT/);
    } finally {
      await h.close();
    }
  });
});
