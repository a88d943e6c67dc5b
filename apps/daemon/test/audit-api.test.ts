import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { adminClient, get, json, post, startDaemon, tempDir, type Client, type Harness } from './daemon-harness.js';
import { activeRecorders, type DiskSpace } from '../src/domains/audit/audit-recorder.js';
import type { AuditDeps } from '../src/domains/audit/audit-module.js';

/*
 * Behaviour audit through the API (spec §2, §5, §9): the disk refused at 500 MB, search by
 * client, time and text, CSV exports that no cell of a hostile record can turn into a formula,
 * and the retention on the test's clock: by the disk's size, the oldest day above 80 % use.
 */

const MB = 1024 * 1024;
const DAY = 86_400_000;
const usb = tempDir('portico-audit-disk-');
const small = tempDir('portico-audit-small-');
/** Disk sizes the test sets; every probe reads them. */
const disks: Record<string, DiskSpace> = {};

const deps: AuditDeps = {
  probe: async (path) => disks[path] ?? { total: 0, free: 0 },
  disks: async () => [
    { path: small, total: disks[small]!.total, free: disks[small]!.free, retentionDays: null },
    { path: usb, total: disks[usb]!.total, free: disks[usb]!.free, retentionDays: 6 },
  ],
};

let h: Harness;
let admin: Client;
beforeAll(async () => {
  disks[small] = { total: 500 * MB, free: 400 * MB };
  disks[usb] = { total: 1024 * MB, free: 900 * MB };
  h = await startDaemon({ deps: { audit: deps } as never });
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

const url = (path: string) => `${path}${path.includes('?') ? '&' : '?'}_=${h.clock.ms}`;
const read = async (path: string) => json(await get(h.app, admin, url(path)));

describe('settings', () => {
  test('a disk of 500 MB is refused, an unknown disk too; a larger one is taken', async () => {
    expect((await read('/api/sysconf/audit')).data).toMatchObject({ enabled: false, urls: true, flows: true, disk: '' });
    const tooSmall = json(await post(h.app, admin, '/api/sysconf/audit', { enabled: true, disk: small }));
    expect(tooSmall).toMatchObject({ success: false, msg: 'behaviourAudit.msg.diskTooSmall', errors: { disk: 'behaviourAudit.msg.diskTooSmall' } });
    const unknown = json(await post(h.app, admin, '/api/sysconf/audit', { enabled: true, disk: '/mnt/none' }));
    expect(unknown).toMatchObject({ success: false, msg: 'behaviourAudit.msg.diskMissing' });
    const hostile = json(await post(h.app, admin, '/api/sysconf/audit', { enabled: true, disk: '/mnt/../etc' }));
    expect(hostile).toMatchObject({ success: false, errors: { disk: 'validation.audit.disk' } });
    // Off, any disk may be named: nothing is recorded.
    expect(json(await post(h.app, admin, '/api/sysconf/audit', { enabled: false, disk: small })).success).toBe(true);
    expect(json(await post(h.app, admin, '/api/sysconf/audit', { enabled: true, disk: usb })).success).toBe(true);
    expect((await read('/api/sysconf/audit')).data).toMatchObject({ enabled: true, disk: usb });
    const listed = (await read('/api/sysconf/disk')).data.items;
    expect(listed.map((d: { path: string }) => d.path)).toEqual([small, usb]);
  });
});

describe('records', () => {
  test('search by client, time and text; pages; CSV exports escape hostile records', async () => {
    const recorder = activeRecorders().of(usb);
    const now = h.clock.ms;
    for (let i = 0; i < 30; i++) {
      recorder.addUrl({ ts: now - i * 60_000, client: '192.168.11.50', server: '192.0.2.80', port: 80, kind: 'http', host: `site${i % 3}.test`, path: `/p${i}` });
    }
    recorder.addUrl({ ts: now - 1000, client: '192.168.11.60', server: '192.0.2.81', port: 443, kind: 'tls', host: 'other.test', path: '' });
    recorder.addUrl({ ts: now - 2 * DAY, client: '192.168.11.50', server: '192.0.2.80', port: 80, kind: 'http', host: 'old.test', path: '/' });
    recorder.addUrl({ ts: now - 500, client: '192.168.11.70', server: '192.0.2.82', port: 80, kind: 'http', host: 'evil.test', path: '/=HYPERLINK("x"),1' });
    recorder.addFlow({ ts: now - 500, client: '192.168.11.50', cport: 40000, server: '192.0.2.80', port: 80, proto: 'tcp' });
    recorder.addFlow({ ts: now - 400, client: '192.168.11.60', cport: 5353, server: '192.0.2.53', port: 53, proto: 'udp' });

    const one = (await read('/api/sysconf/audit/urls?client=192.168.11.50&pageSize=10')).data;
    expect(one.total).toBe(30);
    expect(one.items).toHaveLength(10);
    expect(one.items[0]).toEqual({ ts: now, client: '192.168.11.50', server: '192.0.2.80', port: 80, kind: 'http', host: 'site0.test', path: '/p0' });
    const page3 = (await read('/api/sysconf/audit/urls?client=192.168.11.50&pageSize=10&page=3')).data;
    expect(page3.items.at(-1).path).toBe('/p29');
    // The default window is the last 24 hours; an older one is asked for.
    const older = (await read(`/api/sysconf/audit/urls?client=192.168.11.50&from=${now - 3 * DAY}&to=${now - DAY}`)).data;
    expect(older.items.map((r: { host: string }) => r.host)).toEqual(['old.test']);
    const text = (await read('/api/sysconf/audit/urls?text=SITE1')).data;
    expect(text.total).toBe(10);
    expect((await read('/api/sysconf/audit/urls?text=%25')).data.total).toBe(0);
    const flows = (await read('/api/sysconf/audit/flows?text=53')).data;
    expect(flows.items).toEqual([{ ts: now - 400, client: '192.168.11.60', cport: 5353, server: '192.0.2.53', port: 53, proto: 'udp' }]);
    expect((await read('/api/sysconf/audit/flows?text=192.0.2.80')).data.total).toBe(1);

    expect(await read('/api/sysconf/audit/urls?client=<script>')).toMatchObject({ success: false, errors: { client: 'validation.ipv4' } });

    const csv = await post(h.app, admin, '/api/sysconf/audit/urlexport', { action: 'download', client: '192.168.11.70' });
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toBe('attachment; filename="audit-urls.csv"');
    const lines = csv.body.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('time,client,server,port,kind,host,path');
    expect(lines[1]).toBe(`${new Date(now - 500).toISOString()},192.168.11.70,192.0.2.82,80,http,evil.test,"/=HYPERLINK(""x""),1"`);
    const ip = await post(h.app, admin, '/api/sysconf/audit/ipexport', { action: 'download' });
    expect(ip.body.replace(/^\uFEFF/, '').trim().split('\r\n')).toHaveLength(3);
  });

  test('retention: by the disk size, then the oldest day above 80 % use, nothing on a disk of 500 MB', async () => {
    const recorder = activeRecorders().of(usb);
    const now = h.clock.ms;
    // 1 GB keeps 6 days.
    recorder.addUrl({ ts: now - 7 * DAY, client: '192.168.11.90', server: '192.0.2.80', port: 80, kind: 'http', host: 'expired.test', path: '/' });
    recorder.addUrl({ ts: now - 5 * DAY, client: '192.168.11.90', server: '192.0.2.80', port: 80, kind: 'http', host: 'kept.test', path: '/' });
    const all = `/api/sysconf/audit/urls?client=192.168.11.90&from=0&to=${now + DAY}`;
    expect((await read(all)).data.total).toBe(2);
    const status = (await read('/api/sysconf/auditdisk')).data;
    expect(status).toMatchObject({ enabled: true, disk: usb, refused: false, retentionDays: 6, total: 1024 * MB });
    expect((await read(all)).data.items.map((r: { host: string }) => r.host)).toEqual(['kept.test']);

    // Above 80 %: one day goes at each pass, the oldest first.
    disks[usb] = { total: 1024 * MB, free: 100 * MB };
    await read('/api/sysconf/auditdisk');
    expect((await read(all)).data.total).toBe(0);
    expect((await read('/api/sysconf/audit/urls?client=192.168.11.50&pageSize=1')).data.total).toBe(30);
    disks[usb] = { total: 1024 * MB, free: 900 * MB };
    await read('/api/sysconf/auditdisk');
    expect((await read('/api/sysconf/audit/urls?client=192.168.11.50&pageSize=1')).data.total).toBe(30);

    // The disk turned out to be 500 MB: nothing more is recorded.
    disks[usb] = { total: 500 * MB, free: 400 * MB };
    expect((await read('/api/sysconf/auditdisk')).data).toMatchObject({ refused: true, retentionDays: null });
    recorder.addUrl({ ts: h.clock.ms, client: '192.168.11.91', server: '192.0.2.80', port: 80, kind: 'http', host: 'refused.test', path: '/' });
    expect((await read('/api/sysconf/audit/urls?client=192.168.11.91')).data.total).toBe(0);
    disks[usb] = { total: 1024 * MB, free: 900 * MB };
    await read('/api/sysconf/auditdisk');
  });

  test('clean removes every record', async () => {
    const cleaned = json(await post(h.app, admin, '/api/sysconf/auditdisk', { action: 'clean' }));
    expect(cleaned).toMatchObject({ success: true, data: { urls: 0, flows: 0, msg: 'behaviourAudit.msg.cleaned' } });
    expect((await read(`/api/sysconf/audit/urls?from=0&to=${h.clock.ms + DAY}`)).data.total).toBe(0);
  });
});

describe('retention and disks, as rules', () => {
  test('3 days per 500 MB, from 3 days to six months; nothing at 500 MB', async () => {
    const { retentionDays } = await import('../src/domains/audit/audit-recorder.js');
    expect(retentionDays(500 * MB)).toBeNull();
    expect(retentionDays(501 * MB)).toBe(3);
    expect(retentionDays(1024 * MB)).toBe(6);
    expect(retentionDays(16 * 1024 * MB)).toBe(98);
    expect(retentionDays(1024 * 1024 * MB)).toBe(183);
  });

  test('the disks offered: block devices mounted under /mnt or /media, no odd path', async () => {
    const { diskMounts } = await import('../src/domains/audit/audit-disks.js');
    const mounts = [
      '/dev/vda1 / ext4 rw 0 0',
      '/dev/sda1 /mnt/usb1 ext4 rw 0 0',
      '/dev/sdb1 /media/disk\\040two vfat rw 0 0',
      'tmpfs /mnt/tmp tmpfs rw 0 0',
      '/dev/sdc1 /media/backup ext4 rw 0 0',
    ].join('\n');
    expect(diskMounts(mounts)).toEqual(['/mnt/usb1', '/media/backup']);
  });

  test('a CSV cell never starts a formula and keeps its quotes and separators inside', async () => {
    const { csvCell } = await import('../src/domains/audit/audit-routes.js');
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
    expect(csvCell(80)).toBe('80');
  });
});
