import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { openvpnServer, writeSchema, type AnyEntity } from '@portico/schema';
import { createOpenwrtApplier } from '../src/config/apply-openwrt.js';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { systemRegistry } from '../src/domain-list.js';
import { OPENVPN_FILES } from '../src/domains/vpn-server/vpn-server-openvpn.js';
import { OPENWRT_OPENVPN_FILES, OPENWRT_VPN_SERVER_INCLUDES } from '../src/domains/vpn-server/vpn-server-openwrt.js';
import { checkUci } from '../src/engine/uci-check.js';
import type { RenderedFile } from '../src/engine/engine-types.js';
import { writeFw4Tree } from '../../../tests/packaging/openwrt/fw4-ruleset.js';
import { firewallSnapshot } from './firewall-fixture.js';
import { checkerAvailable } from './network-checker-run.js';

const work = mkdtempSync(join(tmpdir(), 'portico-openwrt-openvpn-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const STATE = '/etc/portico';
const registry = systemRegistry({ driver: 'openwrt', stateDir: STATE });

function server(input: Record<string, unknown>) {
  const parsed = writeSchema(openvpnServer as unknown as AnyEntity, 'update').safeParse(input);
  if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues));
  return { openvpnServer: [{ id: '', data: parsed.data as Record<string, unknown> }] };
}

/** The representative network with the server's row: what the network and openvpn-server domains render. */
function rendered(input: Record<string, unknown>): Map<string, RenderedFile> {
  const snapshot: ConfigSnapshot = { ...firewallSnapshot({}), ...server(input) };
  const files = registry.renderEach(['network', 'openvpn-server'], snapshot).flatMap((entry) => entry.outputs ?? []).flatMap((o) => o.files);
  return new Map(files.map((f) => [f.target, f]));
}

const HEADER = '# Portico VPN servers (fw4 include). Generated; changes are overwritten.';

describe('the OpenVPN server on OpenWrt', () => {
  test('one UCI section of the openvpn package points at the rendered server.conf; the PKI stays in the state folder', () => {
    const files = rendered({ enabled: true, host: 'vpn.example.org', port: 1195, push_routes: '192.168.1.0/24' });
    const uci = files.get(OPENWRT_OPENVPN_FILES.uci)!;
    expect(uci.content).toBe("config openvpn 'portico'\n\toption enabled '1'\n\toption config '/etc/portico/openvpn/server.conf'\n");
    expect(checkUci(uci.content)).toBeNull();
    const conf = files.get(OPENVPN_FILES.conf)!;
    expect(conf.check).toBe('openvpn');
    expect(conf.content).toContain('port 1195\n');
    expect(conf.content).toContain('ca /etc/portico/vpn-server/openvpn-pki/ca.crt\n');
    expect(conf.content).toContain('management /etc/portico/vpn-server/openvpn.sock unix\n');
    expect(registry.formats.builtinCheck(conf.check, conf.content)).toBeNull();
    // Nothing of the linux driver's supervisor: the init script starts the server.
    expect(files.has(OPENVPN_FILES.control)).toBe(false);
  });

  test('fw4 includes: the port and the tunnel open on every side, the tunnel forwarded and, in NAT mode, masqueraded', async () => {
    const files = rendered({ enabled: true, host: 'vpn.example.org', proto: 'tcp', port: 443 });
    expect(files.get(OPENWRT_VPN_SERVER_INCLUDES.input)?.content).toBe(`${HEADER}\ntcp dport 443 accept\niifname "ovpns0" accept\n`);
    expect(files.get(OPENWRT_VPN_SERVER_INCLUDES.forward)?.content).toBe(`${HEADER}\niifname "ovpns0" accept\noifname "ovpns0" accept\n`);
    expect(files.get(OPENWRT_VPN_SERVER_INCLUDES.srcnat)?.content).toBe(`${HEADER}\nip saddr 10.8.0.0/24 oifname != "ovpns0" masquerade\n`);
    const routed = rendered({ enabled: true, host: 'vpn.example.org', workmode: 'route' });
    expect(routed.has(OPENWRT_VPN_SERVER_INCLUDES.srcnat)).toBe(false);
    if ((await checkerAvailable('nft')) && process.getuid?.() === 0) {
      const result = await execa('nft', ['-c', '-f', writeFw4Tree(files.values(), work)], { reject: false });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
    }
  });

  test('disabled: no server file, no UCI section, no include', () => {
    const files = rendered({ enabled: false });
    for (const target of [OPENVPN_FILES.conf, OPENWRT_OPENVPN_FILES.uci, ...Object.values(OPENWRT_VPN_SERVER_INCLUDES)]) expect(files.has(target), target).toBe(false);
  });

  test.runIf(existsSync('/usr/sbin/openvpn'))('OpenVPN itself parses the server.conf rendered for OpenWrt', async () => {
    const file = join(work, 'server.conf');
    writeFileSync(file, rendered({ enabled: true, host: 'vpn.example.org' }).get(OPENVPN_FILES.conf)!.content);
    const result = await execa('openvpn', ['--config', file, '--verb', '0', '--genkey', 'secret', '/dev/null'], { reject: false });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });
});

describe('applying the OpenVPN server on OpenWrt', () => {
  let root: string;
  let commands: string[][];
  const run: CommandRunner = async (argv) => {
    commands.push([...argv]);
    return { exitCode: 0, stdout: '', stderr: '' };
  };
  beforeEach(() => {
    root = mkdtempSync(join(work, 'apply-'));
    commands = [];
    mkdirSync(join(root, 'etc/init.d'), { recursive: true });
    writeFileSync(join(root, 'etc/init.d/openvpn'), '');
  });

  const applier = () => createOpenwrtApplier({ root, run, domains: systemRegistry({ driver: 'openwrt', stateDir: STATE }) });

  test('enabling installs both files and restarts OpenWrt’s openvpn once; disabling removes them and restarts it again', async () => {
    const openwrt = applier();
    await openwrt.apply(['openvpn-server'], server({ enabled: true, host: 'vpn.example.org' }));
    expect(readFileSync(join(root, 'etc/config/openvpn'), 'utf8')).toContain("option config '/etc/portico/openvpn/server.conf'");
    expect(existsSync(join(root, 'etc/portico/openvpn/server.conf'))).toBe(true);
    // The real checker ran on the candidate before it was installed.
    expect(commands.filter((c) => c[0] === 'openvpn')).toHaveLength(1);
    expect(commands.filter((c) => c[0] !== 'openvpn')).toEqual([['/etc/init.d/openvpn', 'restart']]);
    commands = [];
    await openwrt.apply(['openvpn-server'], server({ enabled: true, host: 'vpn.example.org', port: 1200 }));
    expect(commands.filter((c) => c[0] !== 'openvpn')).toEqual([['/etc/init.d/openvpn', 'restart']]);
    commands = [];
    await openwrt.apply(['openvpn-server'], server({ enabled: false }));
    expect(existsSync(join(root, 'etc/config/openvpn'))).toBe(false);
    expect(existsSync(join(root, 'etc/portico/openvpn/server.conf'))).toBe(false);
    expect(commands).toEqual([['/etc/init.d/openvpn', 'restart']]);
  });

  test('without OpenWrt’s openvpn package the files are kept and nothing is restarted', async () => {
    rmSync(join(root, 'etc/init.d/openvpn'));
    await applier().apply(['openvpn-server'], server({ enabled: true, host: 'vpn.example.org' }));
    expect(existsSync(join(root, 'etc/config/openvpn'))).toBe(true);
    expect(commands.filter((c) => c[0] !== 'openvpn')).toEqual([]);
  });
});
