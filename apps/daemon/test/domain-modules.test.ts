import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineEntity, type AnyEntity } from '@portico/schema';
import { DOMAIN_MODULES, systemRegistry, systemRulesetParts } from '../src/domain-list.js';
import { collectionRows } from '../src/config/config-domains.js';
import { defineDomain } from '../src/config/domain-module.js';
import { registerEntityRoutes } from '../src/config/entity-routes.js';
import { FormatRegistry, UnknownFormatError } from '../src/engine/file-format.js';
import { installDomains } from '../src/engine/file-install.js';
import { MANIFEST_TARGET, readManifest, staleTargets } from '../src/engine/install-manifest.js';
import { firewallContributor } from '../src/domains/firewall/firewall-contributor.js';
import { QOS_ENTITY_NAMES } from '../src/domains/qos/qos-config.js';
import { HOTSPOT_ENTITIES } from '../src/domains/hotspot/hotspot-config.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { adminClient, json, post, startDaemon, tempDir, type Harness } from './daemon-harness.js';

const domainsDir = join(import.meta.dirname, '..', 'src', 'domains');

describe('the domain list', () => {
  test('one module per folder under src/domains, named after it, each once', () => {
    const folders = readdirSync(domainsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    expect(DOMAIN_MODULES.map((m) => m.name).sort()).toEqual(folders);
  });

  test('ruleset parts run in list order: the hotspot before the firewall, Smart QoS last', () => {
    const parts = systemRulesetParts({ qosDownload: 'lan' });
    expect(parts).toHaveLength(3);
    expect(parts[0]!.entities).toEqual(Object.values(HOTSPOT_ENTITIES));
    expect(parts[1]).toBe(firewallContributor);
    expect(parts[2]!.entities).toEqual(QOS_ENTITY_NAMES);
  });

  test('config domains apply in order, and every entity they name feeds them', () => {
    const registry = systemRegistry();
    expect(registry.renderable()).toEqual(['network', 'conntrack', 'qos']);
    expect(registry.domainsOf(['qosIpRule'])).toEqual(['network', 'qos']);
    expect(registry.domainsOf(['firewallSessionLimit'])).toEqual(['network', 'conntrack']);
  });

  test('a format is brought once; a file of a format nobody brings cannot be installed', async () => {
    expect(() => new FormatRegistry([{ name: 'nft' }, { name: 'nft' }])).toThrow(/declared twice/);
    const root = tempDir('portico-format-');
    const run: CommandRunner = async () => ({ exitCode: 0, stdout: '', stderr: '' });
    const rendered = [{ domain: 'x', files: [{ target: '/etc/portico/x.conf', content: 'x\n', check: 'no-such-format' }] }];
    await expect(installDomains(rendered, { root, run, formats: systemRegistry().formats, tools: true })).rejects.toBeInstanceOf(UnknownFormatError);
    expect(existsSync(join(root, 'etc/portico/x.conf'))).toBe(false);
  });
});

describe('the install manifest', () => {
  test('stale targets: what a rendered domain installed before and no domain renders now', () => {
    const manifest = { network: ['/etc/a', '/etc/b', '/etc/moved'], qos: ['/etc/q'] };
    const rendered = [
      { domain: 'network', files: [{ target: '/etc/a' }] },
      { domain: 'firewall', files: [{ target: '/etc/moved' }] },
    ];
    // qos was not rendered in this apply: its file stays; /etc/moved changed hands and stays.
    expect(staleTargets(manifest, rendered)).toEqual(['/etc/b']);
    // A domain that leaves its files as installed removes nothing.
    expect(staleTargets(manifest, [{ domain: 'network', files: null }])).toEqual([]);
  });

  test('a tampered manifest cannot make an apply remove files outside what it names plainly', async () => {
    const root = tempDir('portico-manifest-');
    const run: CommandRunner = async () => ({ exitCode: 0, stdout: '', stderr: '' });
    const formats = systemRegistry().formats;
    await installDomains([{ domain: 'd', files: [{ target: '/etc/portico/keep.conf', content: 'k\n', check: 'none' }] }], { root, run, formats, tools: false });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(root, MANIFEST_TARGET), JSON.stringify({ d: ['/etc/portico/keep.conf', '/etc/../etc/portico/keep.conf', 'relative', 7] }));
    expect(await readManifest(root)).toEqual({ d: ['/etc/portico/keep.conf'] });
    writeFileSync(join(root, MANIFEST_TARGET), '{not json');
    expect(await readManifest(root)).toEqual({});
  });
});

/**
 * The worked example of apps/daemon/README.md: a domain added without touching the engine,
 * config, plugins or drivers. It serves an entity of its own, renders one file per row in a
 * format it brings, and its files leave the system with their rows.
 */
const sampleHost = defineEntity({
  name: 'sampleHost',
  path: 'sample/host',
  module: 'interface',
  kind: 'collection',
  schema: z.object({ id: z.string(), name: z.string().min(1).max(32), address: z.string().min(1).max(64) }),
  list: { columns: [{ field: 'name' }] },
}) as unknown as AnyEntity;

const sampleModule = defineDomain({
  name: 'sample-hosts',
  pages: ['interface'],
  formats: [{ name: 'sample-hosts', builtin: (content) => (/^[a-z0-9.-]+ [0-9.]+\n$/.test(content) ? null : 'not one host line') }],
  configDomains: () => [
    {
      name: 'sample-hosts',
      entities: ['sampleHost'],
      render: (snapshot) => [
        {
          domain: 'sample-hosts',
          files: collectionRows(snapshot, 'sampleHost').map((row) => ({
            target: `/etc/portico/hosts.d/${String(row.id)}.host`,
            content: `${String(row.name)} ${String(row.address)}\n`,
            check: 'sample-hosts',
          })),
        },
      ],
    },
  ],
  register: (app, ctx) => registerEntityRoutes(app, ctx, [sampleHost]),
});

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a domain added through the contract alone', () => {
  test('serves its entity, renders and checks its files, and removes them with their rows', async () => {
    h = await startDaemon({ deps: { modules: [...DOMAIN_MODULES, sampleModule] } });
    const admin = await adminClient(h);
    const hostsDir = join(h.stateDir, 'rendered/etc/portico/hosts.d');
    const added = json(await post(h.app, admin, '/api/sample/host', { action: 'add', name: 'printer', address: '192.168.11.9' }));
    expect(added.success, JSON.stringify(added)).toBe(true);
    expect(readFileSync(join(hostsDir, `${added.data.id}.host`), 'utf8')).toBe('printer 192.168.11.9\n');

    const refused = json(await post(h.app, admin, '/api/sample/host', { action: 'add', name: 'Bad Name', address: '192.168.11.10' }));
    expect(refused).toEqual({ success: false, msg: 'msg.applyFailed' });
    expect(readdirSync(hostsDir)).toEqual([`${added.data.id}.host`]);

    expect(json(await post(h.app, admin, '/api/sample/host', { action: 'delete', id: added.data.id })).success).toBe(true);
    expect(readdirSync(hostsDir)).toEqual([]);
  });

  test('a route of a page the domain does not declare stops the daemon from starting', async () => {
    const undeclared = defineDomain({ name: 'sample-undeclared', pages: [], register: (app, ctx) => registerEntityRoutes(app, ctx, [sampleHost]) });
    await expect(startDaemon({ deps: { modules: [...DOMAIN_MODULES, undeclared] } })).rejects.toThrow(/does not declare/);
  });
});
