import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { createOpenwrtApplier } from '../src/config/apply-openwrt.js';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import type { RenderedFile } from '../src/engine/engine-types.js';
import { systemRegistry } from '../src/domain-list.js';
import { OPENWRT_SWANCTL_FILES } from '../src/domains/network/network-openwrt-vpn.js';
import { checkOpenwrtCharonFragment, OPENWRT_IPSEC_FILES } from '../src/domains/vpn-server/vpn-server-ipsec-openwrt.js';
import { checkSwanctlServer } from '../src/domains/vpn-server/vpn-server-ipsec.js';
import { OPENWRT_VPN_SERVER_INCLUDES } from '../src/domains/vpn-server/vpn-server-openwrt.js';
import { readOpenwrtIpsecStatus } from '../src/domains/vpn-server/vpn-server-ipsec-routes.js';
import { firewallSnapshot } from './firewall-fixture.js';

const work = mkdtempSync(join(tmpdir(), 'portico-openwrt-ipsec-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const registry = systemRegistry({ driver: 'openwrt', stateDir: '/etc/portico' });
const peer = { name: 'hq', remote_addr: '198.51.100.2', local_subnets: '192.168.1.0/24', peer_subnets: '10.20.0.0/24', remote_id: 'hq.example.org', psk: 'secret "key"' };

/** The representative network (with its IPsec client `hq`) and the server's peers. */
function snapshot(peers: object[], extra: Record<string, object> = {}): ConfigSnapshot {
  return firewallSnapshot({ ipsecPeer: peers, ...extra });
}

function rendered(snap: ConfigSnapshot): Map<string, RenderedFile> {
  const files = registry.renderEach(['network', 'ipsec-server'], snap).flatMap((entry) => entry.outputs ?? []).flatMap((o) => o.files);
  return new Map(files.map((f) => [f.target, f]));
}

describe('the IPsec server on OpenWrt: swanctl fragments of the system charon', () => {
  test('beside the clients’ fragment (theirs vpnc-<name>), the keys in a 0600 file outside conf.d included by absolute path', () => {
    const files = rendered(snapshot([peer]));
    const client = files.get(OPENWRT_SWANCTL_FILES.connections)!;
    const server = files.get(OPENWRT_IPSEC_FILES.connections)!;
    const secrets = files.get(OPENWRT_IPSEC_FILES.secrets)!;
    // The client and the peer are both called hq: on the one charon their sections stay apart.
    expect(client.content).toContain('\tvpnc-hq {\n');
    expect(server.content).toContain('\thq {\n');
    expect(server.content).not.toContain('vpnc-');
    expect(server.content).toContain('\t\t\thq {\n\t\t\t\tlocal_ts = 192.168.1.0/24\n');
    expect(server.content.endsWith('}\ninclude /etc/swanctl/portico-server-secrets.conf\n')).toBe(true);
    expect(OPENWRT_IPSEC_FILES.secrets.startsWith('/etc/swanctl/conf.d/')).toBe(false);
    expect(secrets.mode).toBe(0o600);
    // The key's quotes and space are hex, never syntax.
    expect(secrets.content).toContain(`\tike-hq {\n\t\tid-remote = hq.example.org\n\t\tsecret = 0x${Buffer.from('secret "key"').toString('hex')}\n`);
    // The checker takes the absolute include only into swanctl's own folder.
    for (const elsewhere of ['/etc/shadow.conf', '/etc/swanctl/../shadow.conf', '/etc/swanctl/conf.d/x.conf']) {
      expect(checkSwanctlServer(server.content.replace(OPENWRT_IPSEC_FILES.secrets, elsewhere)), elsewhere).not.toEqual([]);
    }
    for (const file of [server, secrets]) {
      expect(file.check).toBe('ipsec-swanctl');
      expect(checkSwanctlServer(file.content)).toEqual([]);
      expect(registry.formats.builtinCheck(file.check, file.content)).toBeNull();
    }
  });

  test('charon’s aggressive-mode consent: yes only while a served IKEv1 aggressive peer needs it', () => {
    const main = rendered(snapshot([peer])).get(OPENWRT_IPSEC_FILES.charon)!;
    expect(main.content).toContain('\ti_dont_care_about_security_and_use_aggressive_mode_psk = no\n');
    const aggressive = rendered(snapshot([{ ...peer, ike: 'ikev1', ipsec_mode: 'aggressive' }])).get(OPENWRT_IPSEC_FILES.charon)!;
    expect(aggressive.content).toContain('\ti_dont_care_about_security_and_use_aggressive_mode_psk = yes\n');
    for (const file of [main, aggressive]) {
      expect(checkOpenwrtCharonFragment(file.content)).toEqual([]);
      expect(registry.formats.builtinCheck(file.check, file.content)).toBeNull();
    }
    // Anything else in charon's settings is refused by the fragment's checker.
    for (const tampered of [main.content.replace('= no', '= maybe'), main.content.replace('charon {', 'libstrongswan {'), `${main.content}charon {\n\tinstall_routes = yes\n}\n`, `${main.content}include /etc/x.conf\n`]) {
      expect(checkOpenwrtCharonFragment(tampered), tampered).not.toEqual([]);
    }
  });

  test('the L2TP/IPsec share rides on the same fragment', () => {
    const files = rendered(snapshot([], { l2tpServer: { enabled: true, ipsec: true, psk: 'l2tp-shared-key' } }));
    expect(files.get(OPENWRT_IPSEC_FILES.connections)!.content).toContain('\tl2tp_ipsec {\n');
    expect(files.get(OPENWRT_IPSEC_FILES.secrets)!.content).toContain('\tike-l2tp_ipsec {\n');
  });

  test('nothing served: no file of the server; disabled peers do not count', () => {
    for (const snap of [snapshot([]), snapshot([{ ...peer, enabled: false }])]) {
      const files = rendered(snap);
      for (const target of Object.values(OPENWRT_IPSEC_FILES)) expect(files.has(target), target).toBe(false);
    }
  });

  test('a hostile name or identity is refused, a hostile key rendered inert', () => {
    const withRow = (data: Record<string, unknown>) => ({ ...snapshot([peer]), ipsecPeer: [{ id: 'p1', data: { ...snapshot([peer]).ipsecPeer![0]!.data, ...data } }] });
    expect(() => rendered(withRow({ name: 'hq\n}' }))).toThrow(/cannot be rendered|control/);
    expect(() => rendered(withRow({ remote_id: 'a b' }))).toThrow(/cannot be rendered/);
    // A newline never reaches a file, not even hex-encoded: the key is refused.
    expect(() => rendered(withRow({ psk: 'k\n}\nsecrets {' }))).toThrow(/control/);
  });

  test('the servers’ fw4 includes open IKE and ESP and forward what IPsec carries', () => {
    const files = rendered(snapshot([peer]));
    const all = registry.renderEach(['network'], snapshot([peer])).flatMap((e) => e.outputs ?? []).flatMap((o) => o.files);
    const input = all.find((f) => f.target === OPENWRT_VPN_SERVER_INCLUDES.input) ?? files.get(OPENWRT_VPN_SERVER_INCLUDES.input);
    expect(input?.content).toContain('udp dport { 500, 4500 } accept\nmeta l4proto esp accept\n');
  });
});

describe('applying the IPsec server on OpenWrt', () => {
  let root: string;
  let commands: string[][];
  let running = true;
  const run: CommandRunner = async (argv) => {
    commands.push([...argv]);
    const down = !running && argv[0] === '/usr/sbin/swanctl';
    return { exitCode: down ? 1 : 0, stdout: '', stderr: down ? 'connecting to default URI failed' : '' };
  };
  beforeEach(() => {
    root = mkdtempSync(join(work, 'apply-'));
    commands = [];
    running = true;
  });
  const install = () => {
    for (const [dir, file] of [['etc/init.d', 'swanctl'], ['usr/sbin', 'swanctl']] as const) {
      mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, dir, file), '');
    }
  };
  const applier = () => createOpenwrtApplier({ root, run, domains: registry });

  test('one swanctl reload for the clients’ and the server’s files together; the consent made live by --reload-settings', async () => {
    install();
    await applier().apply(['network', 'ipsec-server'], snapshot([{ ...peer, ike: 'ikev1', ipsec_mode: 'aggressive' }]));
    expect(statSync(join(root, OPENWRT_IPSEC_FILES.secrets)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(root, OPENWRT_SWANCTL_FILES.connections), 'utf8')).toContain('\tvpnc-hq {\n');
    // The network's files come first in the pass; charon looks the consent up at each exchange.
    expect(commands.filter((c) => c.some((a) => a.includes('swanctl')))).toEqual([
      ['/etc/init.d/swanctl', 'reload'],
      ['/usr/sbin/swanctl', '--reload-settings'],
    ]);
    commands = [];
    await applier().apply(['ipsec-server'], snapshot([{ ...peer, ike: 'ikev1', ipsec_mode: 'aggressive' }]), { full: true });
    expect(commands.filter((c) => c.some((a) => a.includes('swanctl')))).toEqual([
      ['/usr/sbin/swanctl', '--reload-settings'],
      ['/etc/init.d/swanctl', 'reload'],
    ]);
  });

  test('charon not running: the consent waits for its start, which the reload brings; the apply goes on', async () => {
    install();
    running = false;
    await applier().apply(['ipsec-server'], snapshot([peer]));
    expect(commands.filter((c) => c.some((a) => a.includes('swanctl')))).toEqual([
      ['/usr/sbin/swanctl', '--reload-settings'],
      ['/usr/sbin/swanctl', '--stats'],
      ['/etc/init.d/swanctl', 'reload'],
    ]);
  });

  test('charon running but refusing the settings fails the apply', async () => {
    install();
    const refusing: CommandRunner = async (argv) => ({ exitCode: argv[1] === '--reload-settings' ? 1 : 0, stdout: '', stderr: 'reloading settings failed' });
    await expect(createOpenwrtApplier({ root, run: refusing, domains: registry }).apply(['ipsec-server'], snapshot([peer]))).rejects.toThrow(/reload-settings failed/);
  });

  test('the last peer off: the files removed and the connections unloaded by the same reload', async () => {
    install();
    const openwrt = applier();
    await openwrt.apply(['ipsec-server'], snapshot([peer]));
    commands = [];
    await openwrt.apply(['ipsec-server'], snapshot([{ ...peer, enabled: false }]));
    for (const target of Object.values(OPENWRT_IPSEC_FILES)) expect(existsSync(join(root, target)), target).toBe(false);
    expect(commands).toEqual([['/etc/init.d/swanctl', 'reload']]);
  });

  test('without strongSwan the files are kept and nothing runs', async () => {
    await applier().apply(['ipsec-server'], snapshot([peer]));
    expect(readFileSync(join(root, OPENWRT_IPSEC_FILES.connections), 'utf8')).toContain('\thq {\n');
    expect(commands).toEqual([]);
  });
});

describe('the IPsec server’s status on OpenWrt', () => {
  const listing = [
    'vpnc-hq: #1, ESTABLISHED, IKEv2, 1111111111111111_i* 2222222222222222_r',
    "  remote 'hq.example.com' @ 198.51.100.9[500]",
    'hq: #7, ESTABLISHED, IKEv2, 3333333333333333_i 4444444444444444_r*',
    "  remote 'hq.example.org' @ 198.51.100.2[4500]",
    '  established 10s ago, rekeying in 13393s',
  ].join('\n');

  test('only the server’s SAs of the shared charon, not the clients’', async () => {
    const calls: string[][] = [];
    const run: CommandRunner = async (argv) => (calls.push([...argv]), { exitCode: 0, stdout: listing, stderr: '' });
    const status = await readOpenwrtIpsecStatus(run, 100_000, true);
    expect(calls).toEqual([['swanctl', '--list-sas', '--noblock']]);
    expect(status).toEqual({ running: true, refusals: [], sas: [expect.objectContaining({ name: 'hq', uniqueId: '7', peer: 'hq.example.org', since: 90_000 })] });
  });

  test('charon not answering, or the server serving nothing (charon runs for the clients), reads as stopped', async () => {
    const run: CommandRunner = async () => ({ exitCode: 1, stdout: '', stderr: 'connecting failed' });
    expect(await readOpenwrtIpsecStatus(run, 0, true)).toEqual({ running: false, sas: [], refusals: [] });
    const answering: CommandRunner = async () => ({ exitCode: 0, stdout: listing, stderr: '' });
    expect(await readOpenwrtIpsecStatus(answering, 0, false)).toEqual({ running: false, sas: [], refusals: [] });
  });
});
