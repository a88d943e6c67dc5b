import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { networkInterface, vpnClient } from '@portico/schema';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { createLinuxApplier } from '../src/config/apply-linux.js';
import type { ConfigApplier } from '../src/config/config-types.js';
import { systemRegistry } from '../src/domain-list.js';
import { MANIFEST_TARGET } from '../src/engine/install-manifest.js';
import { adminClient, get, json, startDaemon, tempDir, writeConfirmed, type Client, type Harness } from './daemon-harness.js';

/**
 * Every kind of row that renders files of its own (a PPPoE WAN, PPTP, L2TP and IPsec VPN
 * clients), added through the API and deleted again: afterwards no file under the installed
 * tree carries its name or its secrets, on the sim driver and on the linux driver.
 */

const LAN = { ifname: 'lan', role: 'lan', hwport: ['eth2'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' };
const WAN = { ifname: 'wan', role: 'wan', hwport: ['eth0'], proto: 'static', ipaddr: '203.0.113.2', netmask: '255.255.255.0', gateway: '203.0.113.1' };

/** Rows with files of their own; each carries names and secrets found nowhere else. */
const ROWS: Array<{ entity: typeof networkInterface | typeof vpnClient; body: Record<string, unknown>; traces: string[] }> = [
  {
    entity: networkInterface,
    body: { ifname: 'wanppp', role: 'wan', hwport: ['eth1'], proto: 'pppoe', pppoe_username: 'ppp-user-stale', pppoe_password: 'ppp-secret-Xq7' },
    traces: ['wanppp', 'ppp-user-stale', 'ppp-secret-Xq7'],
  },
  {
    entity: vpnClient,
    body: { type: 'pptp', name: 'pptpstale', server: '198.51.100.80', username: 'pptp-user-stale', password: 'pptp-secret-Kw2' },
    traces: ['pptpstale', 'pptp-user-stale', 'pptp-secret-Kw2'],
  },
  {
    entity: vpnClient,
    body: { type: 'l2tp', name: 'l2tpstale', server: '198.51.100.81', username: 'l2tp-user-stale', password: 'l2tp-secret-Jm4' },
    traces: ['l2tpstale', 'l2tp-user-stale', 'l2tp-secret-Jm4'],
  },
  {
    entity: vpnClient,
    body: { type: 'ipsec', name: 'ipsecstale', server: '198.51.100.82', peer_subnets: '10.77.0.0/16', psk: 'ipsec-psk-Vn9' },
    traces: ['ipsecstale', 'ipsec-psk-Vn9'],
  },
];

/** Every regular file under `dir` with its content. */
function filesUnder(dir: string): Array<{ path: string; content: string }> {
  const out: Array<{ path: string; content: string }> = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push({ path, content: readFileSync(path, 'utf8') });
    }
  };
  walk(dir);
  return out;
}

function tracesIn(dir: string, traces: readonly string[]): string[] {
  return filesUnder(dir).flatMap(({ path, content }) => traces.filter((t) => content.includes(t) || path.includes(t)).map((t) => `${t} in ${path}`));
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const write = (admin: Client, entity: { path: string }, body: Record<string, unknown>) => writeConfirmed(h!, admin, entity, body);

/** Adds the network and every row, checks their traces reached the tree, deletes the rows one by one. */
async function addAndDeleteEverything(installed: string): Promise<void> {
  const admin = await adminClient(h!);
  await write(admin, networkInterface, { action: 'add', ...LAN });
  await write(admin, networkInterface, { action: 'add', ...WAN });
  const added: Array<{ entity: { path: string }; id: string; traces: string[] }> = [];
  for (const row of ROWS) added.push({ entity: row.entity, id: await write(admin, row.entity, { action: 'add', ...row.body }), traces: row.traces });
  for (const row of added) expect(tracesIn(installed, row.traces), `${row.traces[0]} was rendered`).not.toEqual([]);

  for (const row of added) {
    await write(admin, row.entity, { action: 'delete', id: row.id });
    expect(tracesIn(installed, row.traces), `after deleting ${row.traces[0]}`).toEqual([]);
  }
  // The rows are gone from the configuration too, and what remains still renders.
  expect(json(await get(h!.app, admin, `/api/${vpnClient.path}`)).data.items).toEqual([]);
  expect(tracesIn(installed, ['203.0.113.2']).length).toBeGreaterThan(0);
}

describe('files a domain no longer renders are removed', () => {
  test('sim driver: the rendered tree keeps no name or secret of a deleted row', async () => {
    h = await startDaemon();
    const installed = join(h.stateDir, 'rendered');
    await addAndDeleteEverything(installed);
    const manifest = JSON.parse(readFileSync(join(installed, MANIFEST_TARGET), 'utf8')) as Record<string, string[]>;
    expect(manifest.network).toContain('/etc/portico/network.nft');
    expect(manifest.network!.some((target) => target.includes('/ppp/'))).toBe(false);
  });

  test('linux driver: the system root keeps no name or secret of a deleted row', async () => {
    const root = tempDir('portico-stale-root-');
    const run: CommandRunner = async () => ({ exitCode: 0, stdout: '', stderr: '' });
    const registry = systemRegistry({ driver: 'linux', systemRoot: root, qosDownload: 'lan' });
    const applier: ConfigApplier = createLinuxApplier({
      root,
      run,
      domains: registry,
      // The supervised dnsmasq is a stand-in that only writes its pid file.
      spawnPrefix: [process.execPath, join(import.meta.dirname, 'fixtures', 'fake-dnsmasq.mjs')],
    });
    h = await startDaemon({ deps: { config: { applier } } });
    try {
      await addAndDeleteEverything(root);
    } finally {
      await applier.stop?.();
    }
  });
});
