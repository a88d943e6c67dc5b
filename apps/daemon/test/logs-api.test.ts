import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addAccount, adminClient, get, json, login, post, startDaemon, tempDir, type Client, type Harness } from './daemon-harness.js';
import { journalSource } from '../src/domains/logs/logs-sources.js';
import { parseJournalLine } from '../src/domains/logs/logs-syslog.js';
import { compileFilter } from '../src/domains/logs/logs-filter.js';
import { wirelessLogEntry } from '../src/domains/wireless/controller/wireless-controller-log.js';
import { LinkLog } from '../src/domains/network/network-link-log.js';
import { systemRulesetParts } from '../src/domain-list.js';
import { dhcpLogContributions } from '../src/domains/logs/logs-dhcp.js';
import { renderDnsmasq } from '../src/domains/network/network-dnsmasq.js';

/** spec §7 `sysconf/log`: get, clean, download (txt, gz), filters and paging, per log page's permission. */

let h: Harness;
let admin: Client;
const url = '/api/sysconf/log';
const root = () => join(h.stateDir, 'rendered');
const write = (path: string, text: string) => {
  mkdirSync(join(root(), path, '..'), { recursive: true });
  writeFileSync(join(root(), path), text);
};
const page = async (query: string) => json(await get(h.app, admin, `${url}?${query}`));

beforeAll(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

describe('the auth log', () => {
  test('records console sign-ins, right and wrong, with the clock of the device, newest first', async () => {
    h.clock.advance(60);
    const wrongAt = h.clock.ms;
    expect(json(await post(h.app, null, '/api/login', { username: 'admin', password: 'wrong-password' })).success).toBe(false);
    h.clock.advance(60);
    await login(h.app, 'admin', 'Admin2025pass', '192.168.11.9');
    const body = await page('name=auth');
    expect(body.success).toBe(true);
    expect(body.data.source).toBe('file');
    const [newest, older] = body.data.items;
    expect(newest).toMatchObject({ time: h.clock.ms, level: 'info', origin: 'console', key: 'logs.auth.adminSignedIn', values: { user: 'admin', address: '192.168.11.9' } });
    expect(older).toMatchObject({ time: wrongAt, level: 'warning', key: 'logs.auth.adminFailed', values: { user: 'admin' } });
  });

  test('filters by level, time range and text, and pages', async () => {
    const start = h.clock.ms;
    for (let i = 0; i < 25; i++) {
      h.clock.advance(1);
      expect(json(await post(h.app, null, '/api/login', { username: `user${i}`, password: 'nope-nope' })).success).toBe(false);
    }
    const warnings = await page('name=auth&level=warning&size=20');
    expect(warnings.data.total).toBe(26);
    expect(warnings.data.items).toHaveLength(20);
    expect(warnings.data.items[0].values.user).toBe('user24');
    const second = await page('name=auth&level=warning&size=20&page=2');
    expect(second.data.items.map((e: { values: { user: string } }) => e.values.user)).toEqual(['user4', 'user3', 'user2', 'user1', 'user0', 'admin']);
    const ranged = await page(`name=auth&from=${start + 5000}&to=${start + 9000}`);
    expect(ranged.data.items.map((e: { values: { user: string } }) => e.values.user)).toEqual(['user8', 'user7', 'user6', 'user5', 'user4']);
    const text = await page('name=auth&text=USER1');
    expect(text.data.total).toBe(11);
    // Level or time first, then the text (the other way a stored file is scanned).
    expect((await page('name=auth&level=warning&text=User1')).data.total).toBe(11);
    expect((await page(`name=auth&from=${start + 5000}&to=${start + 9000}&text=user8`)).data.items.map((e: { values: { user: string } }) => e.values.user)).toEqual(['user8']);
    expect((await page('name=auth&level=warning&text=values')).data.total).toBe(0);
    // A search matches what an entry says, not the names of its stored fields.
    expect((await page('name=auth&text=values')).data.total).toBe(0);
    expect((await page('name=auth&level=err')).data.total).toBe(0);
  });

  test('a reader may read but not clean; a page it may not see is not answered', async () => {
    const guest = await addAccount(h, admin, 'watcher', 2);
    const guestClient = await login(h.app, 'watcher', guest.password);
    expect(json(await get(h.app, guestClient, `${url}?name=auth`)).success).toBe(true);
    expect(json(await post(h.app, guestClient, url, { action: 'clean', name: 'auth' }))).toEqual({ success: false, msg: 'forbidden' });
    const vouchers = await addAccount(h, admin, 'voucherman', 1);
    const voucherClient = await login(h.app, 'voucherman', vouchers.password);
    expect(json(await post(h.app, voucherClient, url, { action: 'get', name: 'auth' }))).toEqual({ success: false, msg: 'forbidden' });
  });

  test('refuses what it does not know', async () => {
    expect(await page('name=nothing')).toMatchObject({ success: false, errors: { name: 'validation.option' } });
    expect(await page('name=auth&action=clean')).toMatchObject({ success: false, errors: { action: 'validation.option' } });
    expect(await page('name=auth&size=7')).toMatchObject({ success: false, errors: { size: 'validation.option' } });
    expect(await page(`name=auth&text=${encodeURIComponent('a\nb')}`)).toMatchObject({ success: false, errors: { text: 'validation.invalid' } });
    expect(json(await post(h.app, admin, url, { action: 'drop', name: 'auth' }))).toMatchObject({ success: false, errors: { action: 'validation.option' } });
  });
});

describe('the security (DHCP) log', () => {
  const hostile = '<img src=x onerror=alert(1)>';
  const lines = [
    'Mar  1 12:00:01 dnsmasq-dhcp[812]: 1 DHCPDISCOVER(br-lan) 02:00:00:00:00:01',
    `Mar  1 12:00:02 dnsmasq-dhcp[812]: 1 DHCPACK(br-lan) 192.168.11.100 02:00:00:00:00:01 ${hostile}`,
    'Mar  1 12:00:03 dnsmasq-dhcp[812]: 2 DHCPNAK(br-lan) 192.168.11.7 02:00:00:00:00:02 wrong network',
  ];

  test('dnsmasq is told to log DHCP to the file this log reads', () => {
    const ours = dhcpLogContributions(h.settings)[0]!.value as ReturnType<typeof systemRulesetParts>[number];
    // Contributed to the one extension point the network domain renders dnsmasq from.
    expect(systemRulesetParts()).toContainEqual(expect.objectContaining({ entities: [] }));
    const parts = ours.part({}, {} as never)?.dnsmasq ?? [];
    expect(parts).toContain('log-dhcp');
    expect(parts).toContain('log-facility=/var/log/portico/dhcp.log');
    expect(renderDnsmasq({ lanSides: [], wans: [], config: { dhcpServers: [], dhcpStatic: [] } } as never, '', parts)).toContain('\nlog-dhcp\n');
  });

  test('reads dnsmasq lines as written, with a level from their words', async () => {
    write('var/log/portico/dhcp.log', `${lines.join('\n')}\n`);
    const body = await page('name=dhcp');
    expect(body.data.total).toBe(3);
    expect(body.data.items[1]).toMatchObject({ time: Date.UTC(2025, 2, 1, 12, 0, 2), level: 'info', origin: 'dnsmasq-dhcp', text: `1 DHCPACK(br-lan) 192.168.11.100 02:00:00:00:00:01 ${hostile}` });
    expect(body.data.items[0].level).toBe('warning');
    expect((await page(`name=dhcp&text=${encodeURIComponent('onerror')}`)).data.total).toBe(1);
  });

  test('downloads as text and as gzip, streamed, with the filter applied', async () => {
    const text = await get(h.app, admin, `${url}?action=download&name=dhcp`);
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(text.headers['content-disposition']).toMatch(/^attachment; filename="dhcp-log-\d{8}T\d{6}\.txt"$/);
    expect(text.body.split('\n')).toEqual([
      '2025-03-01T12:00:01.000Z info    dnsmasq-dhcp: 1 DHCPDISCOVER(br-lan) 02:00:00:00:00:01',
      `2025-03-01T12:00:02.000Z info    dnsmasq-dhcp: 1 DHCPACK(br-lan) 192.168.11.100 02:00:00:00:00:01 ${hostile}`,
      '2025-03-01T12:00:03.000Z warning dnsmasq-dhcp: 2 DHCPNAK(br-lan) 192.168.11.7 02:00:00:00:00:02 wrong network',
      '',
    ]);
    const zipped = await post(h.app, admin, url, { action: 'download', name: 'dhcp', ext: 'gz', level: 'warning' });
    expect(zipped.headers['content-type']).toBe('application/gzip');
    expect(zipped.headers['content-disposition']).toMatch(/\.txt\.gz"$/);
    expect(gunzipSync(zipped.rawPayload).toString('utf8')).toBe(`${text.body.split('\n')[2]}\n`);
  });

  test('clean empties the file dnsmasq keeps appending to', async () => {
    expect(json(await post(h.app, admin, url, { action: 'clean', name: 'dhcp' }))).toEqual({ success: true, data: {} });
    expect(statSync(join(root(), 'var/log/portico/dhcp.log')).size).toBe(0);
    expect((await page('name=dhcp')).data.total).toBe(0);
  });
});

describe('the system (kernel) log', () => {
  test('reads the kernel file under the system root; clean hides it without cutting a file that is not ours', async () => {
    const kern = '2025-03-01T11:59:00.000000+00:00 gw kernel: [    1.000] Linux version 6.1\n2025-03-01T11:59:30.000000+00:00 gw kernel: [    2.000] e1000: eth0 NIC Link is Up\n';
    write('var/log/kern.log', kern);
    const body = await page('name=system');
    expect(body.data).toMatchObject({ total: 2, source: 'file' });
    expect(body.data.items[0]).toMatchObject({ origin: 'kernel', text: '[    2.000] e1000: eth0 NIC Link is Up', time: Date.UTC(2025, 2, 1, 11, 59, 30) });
    expect(json(await post(h.app, admin, url, { action: 'clean', name: 'system' })).success).toBe(true);
    expect((await page('name=system')).data.total).toBe(0);
    expect(readFileSync(join(root(), 'var/log/kern.log'), 'utf8')).toBe(kern);
    // A line written after the clean shows.
    h.clock.advance(1);
    write('var/log/kern.log', `${kern}${new Date(h.clock.ms).toISOString()} gw kernel: eth0 NIC Link is Down\n`);
    expect((await page('name=system')).data.items.map((e: { text: string }) => e.text)).toEqual(['eth0 NIC Link is Down']);
  });

  test('a log nothing writes here says so', async () => {
    expect((await page('name=ipsec')).data).toMatchObject({ items: [], total: 0, source: 'absent' });
  });

  test('the IPsec log shows the one charon (the IPsec server\'s and the clients\') as the daemon writes its file', async () => {
    mkdirSync(join(root(), 'var/log/portico'), { recursive: true });
    write('var/log/portico/ipsec.log', `${new Date(h.clock.ms).toISOString()} 10[IKE] <branch|1> IKE_SA branch[1] established\n`);
    const items = (await page('name=ipsec')).data.items as Array<{ text: string }>;
    expect(items.map((e) => e.text).join('\n')).toContain('IKE_SA branch[1] established');
  });
});

describe('the port log', () => {
  test('one entry per link change, none for the first look', () => {
    const appended: unknown[] = [];
    const links = [{ ifname: 'wan', status: 'up', role: 'wan' }, { ifname: 'lan', status: 'up', role: 'lan' }];
    const log = new LinkLog(() => ({ items: links as never, total: links.length }), { append: (name, entry) => appended.push({ name, ...entry }) });
    log.sample();
    expect(appended).toEqual([]);
    links[0]!.status = 'down';
    log.sample();
    log.sample();
    links[0]!.status = 'up';
    log.sample();
    expect(appended).toEqual([
      { name: 'port', level: 'warning', origin: 'wan', key: 'logs.port.down', values: { ifname: 'wan', role: 'wan' } },
      { name: 'port', level: 'notice', origin: 'wan', key: 'logs.port.up', values: { ifname: 'wan', role: 'wan' } },
    ]);
  });

  test('what the network domain appends is read and cleaned through sysconf/log', async () => {
    h.app.appContext.logs.append('port', { level: 'warning', origin: 'eth1', key: 'logs.port.down', values: { ifname: 'eth1', role: 'lan' } });
    expect((await page('name=port')).data.items[0]).toMatchObject({ time: h.clock.ms, key: 'logs.port.down', values: { ifname: 'eth1' } });
    expect(json(await post(h.app, admin, url, { action: 'clean', name: 'port' })).success).toBe(true);
    expect((await page('name=port')).data.total).toBe(0);
    h.app.appContext.logs.append('port', { level: 'notice', origin: 'eth1', key: 'logs.port.up', values: { ifname: 'eth1', role: 'lan' } });
    expect((await page('name=port')).data.total).toBe(1);
  });
});

describe('logs other domains keep', () => {
  test('the wireless and SMS logs are read from their domains', async () => {
    expect((await page('name=wireless')).data).toMatchObject({ total: 0, source: 'memory' });
    expect((await page('name=sms')).data).toMatchObject({ total: 0, source: 'memory' });
  });
});

describe('sources read where the system writes', () => {
  test("the journal: journalctl -k -o json with the time range and level passed on, the text matched here", async () => {
    const dir = tempDir('portico-journal-');
    const fake = join(dir, 'journalctl');
    // Answers two kernel entries and, as a third, the arguments it was started with.
    writeFileSync(
      fake,
      `#!${process.execPath}\nconst at = (s) => String(s * 1e6);\nconsole.log(JSON.stringify({ __REALTIME_TIMESTAMP: at(1740830400), PRIORITY: '4', SYSLOG_IDENTIFIER: 'kernel', MESSAGE: 'eth0: link down <b>' }));\nconsole.log('not json');\nconsole.log(JSON.stringify({ __REALTIME_TIMESTAMP: at(1740830401), PRIORITY: '6', MESSAGE: [104, 105] }));\nconsole.log(JSON.stringify({ __REALTIME_TIMESTAMP: at(1740830402), PRIORITY: '3', MESSAGE: process.argv.slice(2).join(' ') }));\n`,
      { mode: 0o755 },
    );
    const source = journalSource(fake, parseJournalLine);
    expect(await source.present()).toBe(true);
    const read = async (filter: Parameters<typeof compileFilter>[0]) => {
      const entries = [];
      for await (const batch of source.batches(compileFilter(filter))) entries.push(...batch);
      return entries;
    };
    const all = await read({ from: 1740830000000, to: 1740831000000, level: 'info' });
    expect(all).toEqual([
      { time: 1740830400000, level: 'warning', origin: 'kernel', text: 'eth0: link down <b>' },
      { time: 1740830401000, level: 'info', origin: 'kernel', text: 'hi' },
      { time: 1740830402000, level: 'err', origin: 'kernel', text: '-k -o json --no-pager -q --since=@1740830000 --until=@1740831000 --priority=0..6' },
    ]);
    expect(await read({ text: 'LINK DOWN' })).toHaveLength(1);
    expect(await journalSource(join(dir, 'none'), parseJournalLine).present()).toBe(false);
  });

  test('the wireless controller: a device line as written, the controller a key with values', () => {
    expect(wirelessLogEntry({ source: 'device', serial: 'aabbccddeeff', severity: 3, time: 5, text: '<script>x</script>' })).toEqual({ time: 5, level: 'err', origin: 'aabbccddeeff', text: '<script>x</script>' });
    expect(wirelessLogEntry({ source: 'controller', serial: 'aabbccddeeff', severity: 6, time: 6, key: 'wireless.log.connected', values: { address: '10.0.0.2', firmware: '1.0' } })).toEqual({
      time: 6,
      level: 'info',
      origin: 'aabbccddeeff',
      key: 'wireless.log.connected',
      values: { address: '10.0.0.2', firmware: '1.0' },
    });
  });
});
