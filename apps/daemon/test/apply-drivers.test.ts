import { systemRegistry } from '../src/domain-list.js';
import { afterEach, describe, expect, test } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { defineEntity, ENTITIES, type AnyEntity } from '@portico/schema';
import { registerEntityRoutes } from '../src/config/entity-routes.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { ApplyQueue } from '../src/config/apply-queue.js';
import { createLinuxApplier } from '../src/config/apply-linux.js';
import { createSimApplier } from '../src/config/apply-sim.js';
import { collectionRows } from '../src/config/config-domains.js';
import type { ConfigDomain, ConfigSnapshot } from '../src/config/config-types.js';
import { readSettings } from '../src/settings.js';
import { adminClient, get, json, post, startDaemon, tempDir, type Harness } from './daemon-harness.js';

/** Links rendered as an ip batch, one line per link: a name the checker refuses fails the apply. */
const sampleLink = defineEntity({
  name: 'sampleLink',
  path: 'sample/link',
  module: 'interface',
  kind: 'collection',
  schema: z.object({ id: z.string(), name: z.string().min(1).max(15), address: z.string().min(1) }),
  list: { columns: [{ field: 'name' }] },
  cutsAccess: true,
}) as unknown as AnyEntity;

const linkDomain: ConfigDomain = {
  name: 'links',
  entities: ['sampleLink'],
  render: (snapshot) => [
    {
      domain: 'links',
      files: [
        {
          target: '/etc/portico/links.batch',
          content: collectionRows(snapshot, 'sampleLink')
            .map((row) => `address replace ${String(row.address)} dev ${String(row.name)}\n`)
            .join(''),
          check: 'ip-batch',
        },
      ],
    },
  ],
};

const snapshotOf = (links: Array<{ name: string; address: string }>): ConfigSnapshot => ({
  sampleLink: links.map((l, i) => ({ id: String(i), data: { id: String(i), ...l } })),
});

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('domain registry', () => {
  test('maps entities to their domains; entities of no domain apply nothing', () => {
    const registry = systemRegistry({}, [linkDomain, { name: 'other', entities: ['sampleRule', 'sampleLink'] }]);
    expect(registry.domainsOf(['sampleRule'])).toEqual(['other']);
    expect(registry.domainsOf(['sampleLink', 'sampleRule'])).toEqual(['links', 'other']);
    expect(registry.domainsOf(['adminUser'])).toEqual([]);
    expect(registry.render(['other'], snapshotOf([{ name: 'eth0', address: '10.0.0.1/24' }]))).toEqual([]);
    expect(() => systemRegistry({}, [linkDomain, linkDomain])).toThrow(/declared twice/);
  });

  test('every entity the network domain names is a declared entity', () => {
    const declared = new Set(ENTITIES.map((e) => e.name));
    for (const domain of systemRegistry().renderable().map((name) => systemRegistry().get(name)!)) for (const entity of domain.entities) expect(declared, entity).toContain(entity);
  });
});

describe('sim applier', () => {
  test('keeps the rendered files under <stateDir>/rendered, checked by the builtin checkers', async () => {
    const stateDir = tempDir();
    const applier = createSimApplier({ stateDir, domains: systemRegistry({}, [linkDomain]) });
    await applier.apply(['links'], snapshotOf([{ name: 'eth0', address: '10.0.0.1/24' }]));
    expect(readFileSync(join(stateDir, 'rendered/etc/portico/links.batch'), 'utf8')).toBe('address replace 10.0.0.1/24 dev eth0\n');
    await expect(applier.apply(['links'], snapshotOf([{ name: 'eth0;reboot', address: '10.0.0.1/24' }]))).rejects.toThrow(/failed its ip-batch check/);
    expect(readFileSync(join(stateDir, 'rendered/etc/portico/links.batch'), 'utf8')).toBe('address replace 10.0.0.1/24 dev eth0\n');
  });

  test('through the daemon: a file refused by its checker reverts the write', async () => {
    h = await startDaemon({
      deps: { config: { domains: [linkDomain] } },
      beforeReady: (app) => registerEntityRoutes(app, app.appContext, [sampleLink]),
    });
    const admin = await adminClient(h);
    const file = join(h.stateDir, 'rendered/etc/portico/links.batch');
    const added = json(await post(h.app, admin, '/api/sample/link', { action: 'add', name: 'eth1', address: '192.168.5.1/24' }));
    expect(added.success).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('address replace 192.168.5.1/24 dev eth1\n');
    json(await post(h.app, null, '/api/sysconf/confirm', { token: added.data.confirm.token }));

    const bad = json(await post(h.app, admin, '/api/sample/link', { action: 'update', id: added.data.id, name: 'eth1 up; reboot' }));
    expect(bad).toEqual({ success: false, msg: 'msg.applyFailed' });
    expect(readFileSync(file, 'utf8')).toBe('address replace 192.168.5.1/24 dev eth1\n');
    expect(json(await get(h.app, admin, '/api/sample/link')).data.items).toEqual([{ id: added.data.id, name: 'eth1', address: '192.168.5.1/24' }]);
    expect(json(await get(h.app, admin, '/api/sysconf/confirm')).data).toEqual({ pending: false });
  });

  test('with no renderer for a domain, nothing is written', async () => {
    const stateDir = tempDir();
    await createSimApplier({ stateDir, domains: systemRegistry({}, [{ name: 'network', entities: ['networkInterface'] }]) }).apply(['network'], {});
    expect(existsSync(join(stateDir, 'rendered'))).toBe(false);
  });
});

describe('linux applier', () => {
  test('installs under the system root after the real checker, then activates the changed files', async () => {
    const root = tempDir();
    const calls: string[][] = [];
    const run: CommandRunner = async (argv) => {
      calls.push([...argv]);
      return { exitCode: 0, stdout: '', stderr: '' };
    };
    const nftDomain: ConfigDomain = {
      name: 'firewall',
      entities: ['sampleRule'],
      render: (snapshot) => [
        {
          domain: 'firewall',
          files: [{ target: '/etc/portico/firewall.nft', content: `table inet portico {} # ${collectionRows(snapshot, 'sampleRule').length}\n`, check: 'nft' }],
        },
      ],
    };
    const applier = createLinuxApplier({ root, run, domains: systemRegistry({}, [nftDomain]) });
    await applier.apply(['firewall'], { sampleRule: [] });
    expect(readFileSync(join(root, 'etc/portico/firewall.nft'), 'utf8')).toBe('table inet portico {} # 0\n');
    expect(calls.map((c) => c.slice(0, 2))).toEqual([
      ['nft', '-c'],
      ['nft', '-f'],
    ]);
    expect(calls[1]).toEqual(['nft', '-f', join(root, 'etc/portico/firewall.nft')]);
    // Unchanged files are neither checked nor applied again.
    calls.length = 0;
    await applier.apply(['firewall'], { sampleRule: [] });
    expect(calls).toEqual([]);
    await applier.stop?.();
  });

  test('a refused ruleset fails the apply and leaves the installed one', async () => {
    const root = tempDir();
    const run: CommandRunner = async (argv) => (argv[1] === '-c' ? { exitCode: 1, stdout: '', stderr: 'Error: syntax error' } : { exitCode: 0, stdout: '', stderr: '' });
    const domain: ConfigDomain = {
      name: 'firewall',
      entities: [],
      render: () => [{ domain: 'firewall', files: [{ target: '/etc/portico/firewall.nft', content: 'broken\n', check: 'nft' }] }],
    };
    await expect(createLinuxApplier({ root, run, domains: systemRegistry({}, [domain]) }).apply(['firewall'], {})).rejects.toThrow(/syntax error/);
    expect(existsSync(join(root, 'etc/portico/firewall.nft'))).toBe(false);
  });
});

describe('settings of the apply pipeline', () => {
  test('system root and confirmation window', () => {
    expect(readSettings({})).toMatchObject({ systemRoot: '/', confirmSeconds: 90 });
    expect(readSettings({ PORTICO_SYSTEM_ROOT: '/srv/root', PORTICO_CONFIRM_SECONDS: '30' })).toMatchObject({ systemRoot: '/srv/root', confirmSeconds: 30 });
    expect(() => readSettings({ PORTICO_CONFIRM_SECONDS: '0' })).toThrow(/PORTICO_CONFIRM_SECONDS/);
    expect(() => readSettings({ PORTICO_CONFIRM_SECONDS: '99999' })).toThrow(/PORTICO_CONFIRM_SECONDS/);
  });
});

describe('apply queue', () => {
  test('one run at a time; requests made meanwhile are merged into the next run', async () => {
    const runs: Array<{ domains: string[]; payloads: string[] }> = [];
    let release!: () => void;
    let running = 0;
    let most = 0;
    const queue = new ApplyQueue<string>(async (domains, payloads) => {
      running++;
      most = Math.max(most, running);
      runs.push({ domains, payloads });
      if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
      running--;
      if (domains.includes('bad')) throw new Error('bad domain');
    });
    const first = queue.request(['a'], 'w1');
    const second = queue.request(['b'], 'w2');
    const third = queue.request(['bad', 'b']);
    expect(runs).toEqual([{ domains: ['a'], payloads: ['w1'] }]);
    release();
    await first;
    await expect(second).rejects.toThrow('bad domain');
    await expect(third).rejects.toThrow('bad domain');
    expect(runs).toEqual([
      { domains: ['a'], payloads: ['w1'] },
      { domains: ['b', 'bad'], payloads: ['w2'] },
    ]);
    expect(most).toBe(1);
    await queue.request(['c']);
    await queue.idle();
    expect(runs.at(-1)).toEqual({ domains: ['c'], payloads: [] });
  });
});
