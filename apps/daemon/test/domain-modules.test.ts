import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineEntity, type AnyEntity } from '@portico/schema';
import { DOMAIN_MODULES, systemRegistry, systemRulesetParts } from '../src/domain-list.js';
import { collectionRows } from '../src/config/config-domains.js';
import { defineDomain } from '../src/config/domain-module.js';
import { BACKUP_ROW_ID, countedCapture, countedContent, firstIssue, rawRowId, refuseRow } from '../src/config/backup-part.js';
import type { AppContext } from '../src/app-context.js';
import { VOUCHER_KEY_FILE } from '../src/domains/voucher/voucher-codes.js';
import { voucherStore } from '../src/domains/voucher/voucher-routes.js';
import { registerEntityRoutes } from '../src/config/entity-routes.js';
import { FormatRegistry, UnknownFormatError } from '../src/engine/file-format.js';
import { installDomains } from '../src/engine/file-install.js';
import { MANIFEST_TARGET, readManifest, staleTargets } from '../src/engine/install-manifest.js';
import { firewallContributor } from '../src/domains/firewall/firewall-contributor.js';
import { QOS_ENTITY_NAMES } from '../src/domains/qos/qos-config.js';
import { HOTSPOT_ENTITIES } from '../src/domains/hotspot/hotspot-config.js';
import { cmccRulesetContributor } from '../src/domains/hotspot/cmcc/cmcc-ruleset.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { adminClient, json, post, startDaemon, tempDir, type Client, type Harness } from './daemon-harness.js';
import { BACKUP_URL, RecordingApplier, unpack, upload } from './maintain-fixture.js';

const domainsDir = join(import.meta.dirname, '..', 'src', 'domains');

describe('the domain list', () => {
  test('one module per folder under src/domains, named after it, each once', () => {
    const folders = readdirSync(domainsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    expect(DOMAIN_MODULES.map((m) => m.name).sort()).toEqual(folders);
  });

  test('ruleset parts run in list order: the hotspot (and its RADIUS and CMCC input rules) before the firewall, Smart QoS marks, then the parts that only accept', () => {
    const parts = systemRulesetParts({ qosDownload: 'lan' });
    expect(parts).toHaveLength(12);
    expect(parts[0]!.entities).toEqual(Object.values(HOTSPOT_ENTITIES));
    expect(parts[1]!.entities).toEqual(['hotspotRadius']);
    // The CMCC portal server's packets to the AC port, while a zone signs in through CMCC.
    expect(parts[2]!.entities).toEqual(cmccRulesetContributor().entities);
    expect(parts[3]).toBe(firewallContributor);
    expect(parts[4]!.entities).toEqual(QOS_ENTITY_NAMES);
    // The wireless part depends on no entity: it opens the device listener's port to the LAN.
    expect(parts[5]!.entities).toEqual([]);
    // The VPN servers' ports and tunnels come after Smart QoS: they only accept, never mark.
    expect(parts[6]!.entities).toEqual(['openvpnServer', 'ipsecPeer']);
    expect(parts[7]!.entities).toEqual(['pptpServer', 'l2tpServer', 'pppoeServer']);
    // The behaviour audit's chain only logs, on a hook of its own.
    expect(parts[8]!.entities).toEqual(['behaviourAudit']);
    // The System section's accepts: the LAN NTP server, then remote access.
    expect(parts[9]!.entities).toEqual(['systemTime']);
    expect(parts[10]!.entities).toEqual(['remoteAccess']);
    // The logs domain's part only adds dnsmasq's DHCP log lines.
    expect(parts[11]!.part({}, {} as never)).toMatchObject({ dnsmasq: ['log-dhcp', 'log-facility=/var/log/portico/dhcp.log'] });
  });

  test('config domains apply in order, and every entity they name feeds them', () => {
    const registry = systemRegistry();
    expect(registry.renderable()).toEqual(['network', 'ike', 'conntrack', 'qos', 'openvpn-server', 'ipsec-server', 'ppp-server', 'audit', 'system-time', 'net-param', 'system-info']);
    expect(registry.domainsOf(['ipsecPeer'])).toEqual(['network', 'ike', 'ipsec-server']);
    // The one charon carries the network's IPsec clients and the IPsec server (through IKE_USERS).
    expect(registry.domainsOf(['vpnClient'])).toEqual(['network', 'ike', 'qos']);
    // L2TP/IPsec's key rides on the same charon.
    expect(registry.domainsOf(['l2tpServer'])).toEqual(['network', 'ike', 'ipsec-server', 'ppp-server']);
    expect(registry.domainsOf(['behaviourAudit'])).toEqual(['network', 'audit']);
    expect(registry.domainsOf(['systemTime'])).toEqual(['network', 'system-time']);
    expect(registry.domainsOf(['remoteAccess'])).toEqual(['network']);
    expect(registry.domainsOf(['openvpnServer'])).toEqual(['network', 'openvpn-server']);
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

/**
 * A domain with rows of its own outside the configuration (a table it creates), carried by the
 * backup through its `backup` part alone: the maintain domain knows nothing of it. Its step
 * outside the database publishes the rows once a restore committed, as a key file would be.
 */
const NOTES = ['notes'] as const;
const noteRow = z.object({ id: z.string().regex(BACKUP_ROW_ID), text: z.string().max(64) }).strict();
type Note = z.infer<typeof noteRow>;
const notesContent = z.object({ notes: z.array(z.unknown()).max(1000) }).strict();
const notesOf = (ctx: AppContext) => ctx.db.prepare('SELECT id, text FROM sample_notes ORDER BY rowid').all() as Note[];

/** What the notes domain published after its last restore; whether its next install fails. */
const notesLive = { published: undefined as Note[] | undefined, failInstall: false };

const notesModule = defineDomain({
  name: 'sample-notes',
  migrations: [{ name: 'notes', sql: 'CREATE TABLE sample_notes (id TEXT PRIMARY KEY, text TEXT NOT NULL)' }],
  backup: {
    counts: NOTES,
    limits: { sealed: 64 * 1024, plain: 256 * 1024 },
    capture: (ctx) => countedCapture({ notes: notesOf(ctx) }, NOTES),
    validate(content, counts): Note[] {
      const ids = new Set<string>();
      return countedContent('sample-notes', notesContent, content, counts, NOTES).notes.map((raw) => {
        const parsed = noteRow.safeParse(raw);
        if (!parsed.success) refuseRow('sampleNote', rawRowId(raw), ...firstIssue(parsed.error));
        if (ids.has(parsed.data.id)) refuseRow('sampleNote', parsed.data.id, 'id', 'duplicate id');
        ids.add(parsed.data.id);
        return parsed.data;
      });
    },
    write(ctx, notes: Note[] | null) {
      ctx.db.prepare('DELETE FROM sample_notes').run();
      const insert = ctx.db.prepare('INSERT INTO sample_notes (id, text) VALUES (?, ?)');
      for (const note of notes ?? []) insert.run(note.id, note.text);
      return {
        install: () => {
          if (notesLive.failInstall) throw new Error('the disk refused the notes');
        },
        undo: () => undefined,
        done: () => void (notesLive.published = notes ?? []),
      };
    },
  },
});

describe('a domain with its own backup part', () => {
  const PASSPHRASE = 'notes-travel-2025';
  const withNotes = () => startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { modules: [...DOMAIN_MODULES, notesModule], config: { applier: new RecordingApplier() } } });
  const addNote = (target: Harness, id: string, text: string) => target.app.appContext.db.prepare('INSERT INTO sample_notes (id, text) VALUES (?, ?)').run(id, text);
  const notes = (target: Harness) => notesOf(target.app.appContext);
  const download = async (target: Harness, client: Client, passphrase?: string) => {
    const res = await post(target.app, client, BACKUP_URL, { action: 'download', ...(passphrase ? { passphrase } : {}) });
    expect(res.statusCode).toBe(200);
    return res.rawPayload;
  };

  afterEach(() => {
    notesLive.published = undefined;
    notesLive.failInstall = false;
  });

  test('its rows go into the archive as its own part and come back through download and restore; a reset empties them', async () => {
    h = await withNotes();
    const admin = await adminClient(h);
    addNote(h, 'n1', 'call the ISP');
    addNote(h, 'n2', 'replace the lobby AP');
    const archive = await download(h, admin);
    const entries = await unpack(archive);
    expect(entries.map((e) => e.header.name)).toContain('sample-notes.enc');
    expect(JSON.parse(entries[0]!.body!.toString()).parts).toContainEqual({ name: 'sample-notes', counts: { notes: 2 } });
    expect(Buffer.concat(entries.map((e) => e.body!)).includes(Buffer.from('lobby'))).toBe(false);

    h.app.appContext.db.prepare('DELETE FROM sample_notes').run();
    addNote(h, 'n3', 'written after the backup');
    const reply = json(await upload(h.app, admin, archive));
    expect(reply.success, JSON.stringify(reply)).toBe(true);
    const restored = [
      { id: 'n1', text: 'call the ISP' },
      { id: 'n2', text: 'replace the lobby AP' },
    ];
    expect(notes(h)).toEqual(restored);
    expect(notesLive.published).toEqual(restored);

    expect(json(await post(h.app, admin, BACKUP_URL, { reset: 1 })).success).toBe(true);
    expect(notes(h)).toEqual([]);
    expect(notesLive.published).toEqual([]);
  });

  test('its refusal of a row reaches the console as any other; a daemon without the domain refuses its part', async () => {
    h = await withNotes();
    const admin = await adminClient(h);
    addNote(h, 'n1', 'x'.repeat(65));
    const refused = json(await upload(h.app, admin, await download(h, admin)));
    expect(refused).toMatchObject({ success: false, msg: 'msg.backupRejected', data: { entity: 'sampleNote', id: 'n1', field: 'text' } });
    expect(notesLive.published).toBeUndefined();

    h.app.appContext.db.prepare('DELETE FROM sample_notes').run();
    addNote(h, 'n1', 'fine');
    const portable = await download(h, admin, PASSPHRASE);
    const without = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { config: { applier: new RecordingApplier() } } });
    try {
      const withoutAdmin = await adminClient(without);
      expect(json(await upload(without.app, withoutAdmin, portable, PASSPHRASE))).toMatchObject({ success: false, msg: 'msg.backupInvalid' });
    } finally {
      await without.close();
    }
  });

  test('a step outside the database failing after the voucher key was installed puts that key back', async () => {
    const other = await withNotes();
    let archive: Buffer;
    try {
      const otherAdmin = await adminClient(other);
      expect(json(await post(other.app, otherAdmin, '/api/auth/voucherbatch', { action: 'add', name: 'desk', codelength: 8, amount: 1, validity: 1, unit: 'hours', usernum: 1 })).success).toBe(true);
      addNote(other, 'n1', 'from the other box');
      archive = await download(other, otherAdmin, PASSPHRASE);
    } finally {
      await other.close();
    }
    h = await withNotes();
    const admin = await adminClient(h);
    addNote(h, 'mine', 'stays');
    // The store makes the device's own key on first use.
    const store = voucherStore(h.app.appContext);
    const keyFile = () => readFileSync(join(h!.stateDir, VOUCHER_KEY_FILE)).toString('hex');
    const before = [keyFile(), store.exportState(), notes(h)];

    notesLive.failInstall = true;
    expect((await upload(h.app, admin, archive, PASSPHRASE)).statusCode).toBe(500);
    expect([keyFile(), store.exportState(), notes(h)]).toEqual(before);
    expect(readdirSync(h.stateDir).filter((name) => name.includes('.tmp'))).toEqual([]);
    expect(notesLive.published).toBeUndefined();

    notesLive.failInstall = false;
    expect(json(await upload(h.app, admin, archive, PASSPHRASE)).success).toBe(true);
    expect(keyFile()).not.toBe(before[0]);
    expect(notes(h)).toEqual([{ id: 'n1', text: 'from the other box' }]);
  });
});

describe("a module's own migrations", () => {
  test('run once each, in order, by name, beside the core schema', async () => {
    const { openDatabase, migrateModule } = await import('../src/plugins/db-open.js');
    const db = openDatabase(':memory:');
    const first = [{ name: 'tables', sql: 'CREATE TABLE sample_a (id TEXT PRIMARY KEY)' }];
    migrateModule(db, 'sample', first);
    migrateModule(db, 'sample', first);
    migrateModule(db, 'sample', [...first, { name: 'column', sql: 'ALTER TABLE sample_a ADD COLUMN note TEXT' }]);
    expect((db.prepare('SELECT name FROM module_migrations WHERE module = ? ORDER BY name').all('sample') as Array<{ name: string }>).map((r) => r.name)).toEqual(['column', 'tables']);
    db.prepare('INSERT INTO sample_a (id, note) VALUES (?, ?)').run('x', 'kept');
    // A failing migration leaves neither its change nor its bookkeeping row.
    expect(() => migrateModule(db, 'sample', [{ name: 'broken', sql: 'CREATE TABLE sample_b (id TEXT); SELECT no_such_function()' }])).toThrow();
    expect(db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'sample_b'").get()).toEqual({ n: 0 });
    expect(db.prepare("SELECT COUNT(*) AS n FROM module_migrations WHERE name = 'broken'").get()).toEqual({ n: 0 });
  });
});
