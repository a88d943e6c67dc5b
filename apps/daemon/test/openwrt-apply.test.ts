import { systemRegistry } from '../src/domain-list.js';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { dhcpServer, networkInterface, qosIpRule, vpnClient, writeSchema, type AnyEntity } from '@portico/schema';
import { createOpenwrtApplier } from '../src/config/apply-openwrt.js';
import type { ConfigApplier, ConfigSnapshot } from '../src/config/config-types.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { networkDomain } from '../src/domains/network/network-domain.js';
import { qosDomain } from '../src/domains/qos/qos-domain.js';
import { parseUci } from '../src/engine/uci-format.js';
import { readSettings } from '../src/settings.js';

function row(entity: AnyEntity, id: string, input: Record<string, unknown>) {
  const parsed = writeSchema(entity, 'add').safeParse(input);
  if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues));
  return { id, data: { ...(parsed.data as object), id } as Record<string, unknown> };
}

function snapshot(pool: number): ConfigSnapshot {
  return {
    networkInterface: [
      row(networkInterface, 'wan', { ifname: 'wan', role: 'wan', hwport: ['eth1'], proto: 'dhcp' }),
      row(networkInterface, 'lan', { ifname: 'lan', role: 'lan', hwport: ['eth0'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' }),
    ],
    dhcpServer: [row(dhcpServer, 'dh', { interface: 'lan', start: '192.168.11.100', pool_size: pool, netmask: '255.255.255.0' })],
  };
}

let root: string;
let commands: string[][];
let applier: ConfigApplier;
const run: CommandRunner = async (argv) => {
  commands.push([...argv]);
  return { exitCode: 0, stdout: '', stderr: '' };
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'portico-openwrt-'));
  commands = [];
  applier = createOpenwrtApplier({ root, run, domains: systemRegistry({}, [networkDomain({ port: 8080, systemRoot: '/', driver: 'openwrt' })]) });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('openwrt driver', () => {
  test('is accepted by the settings', () => {
    expect(readSettings({ PORTICO_DRIVER: 'openwrt' }).driver).toBe('openwrt');
  });

  test('installs UCI packages and reloads netifd, dnsmasq and the firewall', async () => {
    await applier.apply(['network'], snapshot(100));
    const network = parseUci(readFileSync(join(root, 'etc/config/network'), 'utf8'));
    expect(network.find((s) => s.type === 'interface' && s.name === 'lan')?.options.ipaddr).toBe('192.168.11.1');
    const dhcp = parseUci(readFileSync(join(root, 'etc/config/dhcp'), 'utf8'));
    expect(dhcp.find((s) => s.type === 'dhcp' && s.name === 'lan')?.options.limit).toBe('100');
    expect(commands).toEqual([
      ['/etc/init.d/network', 'reload'],
      ['/etc/init.d/dnsmasq', 'reload'],
      ['/etc/init.d/firewall', 'reload'],
    ]);
  });

  test('reloads only what changed; a full apply at start reloads everything', async () => {
    await applier.apply(['network'], snapshot(100));
    commands = [];
    await applier.apply(['network'], snapshot(100));
    expect(commands).toEqual([]);
    await applier.apply(['network'], snapshot(50));
    expect(commands).toEqual([['/etc/init.d/dnsmasq', 'reload']]);
    commands = [];
    await applier.apply(['network'], snapshot(50), { full: true });
    expect(commands).toHaveLength(3);
  });

  test('a failing reload fails the apply, so the pipeline rolls back', async () => {
    const failing = createOpenwrtApplier({
      root,
      run: async () => ({ exitCode: 1, stdout: '', stderr: 'netifd: busy' }),
      domains: systemRegistry({}, [networkDomain({ port: 8080, systemRoot: '/', driver: 'openwrt' })]),
    });
    await expect(failing.apply(['network'], snapshot(100))).rejects.toThrow(/netifd: busy/);
  });
});

describe('optional OpenWrt packages', () => {
  test('mwan3 is reloaded only when its package is installed; its configuration is written either way', async () => {
    await applier.apply(['network'], snapshot(100));
    expect(commands.map((c) => c[0])).not.toContain('/etc/init.d/mwan3');
    expect(() => readFileSync(join(root, 'etc/config/mwan3'), 'utf8')).not.toThrow();
    mkdirSync(join(root, 'etc/init.d'), { recursive: true });
    writeFileSync(join(root, 'etc/init.d/mwan3'), '');
    commands = [];
    await applier.apply(['network'], snapshot(100), { full: true });
    expect(commands).toContainEqual(['/etc/init.d/mwan3', 'reload']);
  });

  test('an IPsec client’s swanctl files are loaded through the swanctl init script, once, when strongSwan is installed', async () => {
    const withIpsec: ConfigSnapshot = {
      ...snapshot(100),
      vpnClient: [row(vpnClient, 'hq', { type: 'ipsec', name: 'hq', server: '198.51.100.9', peer_subnets: '10.50.0.0/16', psk: 'pre-shared key 1' })],
    };
    await applier.apply(['network'], withIpsec);
    expect(readFileSync(join(root, 'etc/swanctl/conf.d/portico.conf'), 'utf8')).toContain('hq');
    expect(commands.map((c) => c[0])).not.toContain('/etc/init.d/swanctl');
    mkdirSync(join(root, 'etc/init.d'), { recursive: true });
    writeFileSync(join(root, 'etc/init.d/swanctl'), '');
    commands = [];
    await applier.apply(['network'], withIpsec, { full: true });
    expect(commands.filter((c) => c[0] === '/etc/init.d/swanctl')).toEqual([['/etc/init.d/swanctl', 'reload']]);
  });
});

describe('Smart QoS on OpenWrt', () => {
  const withQos = (rate: number): ConfigSnapshot => ({
    ...snapshot(100),
    qosBase: [{ id: '', data: { qos: true, qosmode: 'custom', p2pblock: false, balance: false } }],
    qosIpRule: [row(qosIpRule, 'r1', { name: 'desk', usernet: '192.168.11.20', upspeed1: rate, downspeed1: rate })],
  });

  test('a changed script is loaded whole like on linux: the owned devices cleared, then tc -batch, so changed classes take effect', async () => {
    const qosApplier = createOpenwrtApplier({ root, run, domains: systemRegistry({}, [qosDomain({ driver: 'openwrt' })]) });
    await qosApplier.apply(['qos'], withQos(2000));
    expect(commands).toContainEqual(['tc', 'qdisc', 'del', 'dev', 'eth1', 'root']);
    expect(commands).toContainEqual(['tc', 'qdisc', 'del', 'dev', 'eth0', 'ingress']);
    expect(commands.at(-1)).toEqual(['tc', '-batch', '/etc/portico/qos.tc']);
    expect(commands.some((c) => c.includes('-force'))).toBe(false);
    commands = [];
    await qosApplier.apply(['qos'], withQos(2000));
    expect(commands).toEqual([]);
    await qosApplier.apply(['qos'], withQos(3000));
    expect(commands.at(-1)).toEqual(['tc', '-batch', '/etc/portico/qos.tc']);
    expect(readFileSync(join(root, 'etc/portico/qos.tc'), 'utf8')).toContain('rate 3000kbit');
  });

  test('a script tc refuses fails the apply', async () => {
    const failing = createOpenwrtApplier({
      root,
      run: async (argv) => ({ exitCode: argv[1] === '-batch' ? 1 : 0, stdout: '', stderr: 'Error: Specified class not found.' }),
      domains: systemRegistry({}, [qosDomain({ driver: 'openwrt' })]),
    });
    await expect(failing.apply(['qos'], withQos(2000))).rejects.toThrow(/class not found/);
  });
});
