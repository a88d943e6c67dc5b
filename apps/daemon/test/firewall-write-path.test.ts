import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { addAccount, adminClient, get, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

let h: Harness;
let admin: Client;

const INTERFACES = [
  { ifname: 'wan1', role: 'wan', hwport: ['eth0'], proto: 'static', ipaddr: '203.0.113.2', netmask: '255.255.255.248', gateway: '203.0.113.1' },
  { ifname: 'wan2', role: 'wan', hwport: ['eth1'], proto: 'dhcp' },
  { ifname: 'lan', role: 'lan', hwport: ['eth2'], proto: 'static', ipaddr: '192.168.1.1', netmask: '255.255.255.0' },
];

type Reply = { success: boolean; msg?: string; errors?: Record<string, string>; data?: any };

async function call(url: string, body: object, client: Client | null = admin): Promise<Reply> {
  return json(await post(h.app, client, url, body));
}

/** Confirms a write that cut access, failing the test when no confirmation was asked. */
async function confirm(reply: Reply): Promise<void> {
  const token = reply.data?.confirm?.token as string | undefined;
  expect(token, `a confirmation token in ${JSON.stringify(reply)}`).toBeTruthy();
  expect((await call('/api/sysconf/confirm', { token, action: 'confirm' }, null)).success).toBe(true);
}

/** A write that must succeed; confirmed when it asked for it. */
async function accepted(url: string, body: object): Promise<Reply> {
  const reply = await call(url, body);
  expect(reply.success, `${url} ${JSON.stringify(reply)}`).toBe(true);
  if (reply.data?.confirm?.token) await confirm(reply);
  return reply;
}

function ruleset(): string {
  return readFileSync(join(h.stateDir, 'rendered', 'etc/portico/network.nft'), 'utf8');
}

beforeEach(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
  for (const row of INTERFACES) await accepted('/api/network', { action: 'add', ...row });
});
afterEach(async () => {
  await h.close();
});

const mapping = { name: 'web', proto: 'tcp', wan: 'wan1', extport: 8080, intip: '192.168.1.10', intport: 80 };

/** Each collection, a valid row, an update, and the API path. */
const COLLECTIONS = [
  { url: '/api/firewall/redirect', row: mapping, change: { intport: 8081 }, cutsAccess: true },
  { url: '/api/firewall/nat', row: { name: 'pool', target: 'snat', src: '192.168.1.0/24', outif: 'wan1', toaddr: '203.0.113.3' }, change: { toaddr: '203.0.113.4' }, cutsAccess: false },
  { url: '/api/hostmapping', row: { name: 'server', wan: 'wan1', public: '203.0.113.4', private: '192.168.1.20' }, change: { private: '192.168.1.21' }, cutsAccess: true },
  { url: '/api/firewall/filter', row: { name: 'no telnet', target: 'reject', proto: 'tcp', dport: '23' }, change: { dport: '2323' }, cutsAccess: true },
  { url: '/api/sessionlimit/rules', row: { name: 'guests', ip: '192.168.1.128/25', perip: 200 }, change: { perip: 300 }, cutsAccess: false },
  { url: '/api/dmz', row: { wan: 'wan1', host: '192.168.1.30' }, change: { host: '192.168.1.31' }, cutsAccess: true },
] as const;

describe('firewall collections through the API', () => {
  test.each(COLLECTIONS)('$url: add, update and delete; confirmation exactly when it can cut access', async ({ url, row, change, cutsAccess }) => {
    const added = await call(url, { action: 'add', ...row });
    expect(added.success, JSON.stringify(added)).toBe(true);
    expect(Boolean(added.data?.confirm?.token), 'confirmation on add').toBe(cutsAccess);
    if (cutsAccess) await confirm(added);
    const id = added.data.id as string;

    const updated = await call(url, { action: 'update', id, ...change });
    expect(updated.success, JSON.stringify(updated)).toBe(true);
    expect(Boolean(updated.data?.confirm?.token), 'confirmation on update').toBe(cutsAccess);
    if (cutsAccess) await confirm(updated);
    const stored = json(await get(h.app, admin, url)).data.items as Array<Record<string, unknown>>;
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject(change);

    const deleted = await call(url, { action: 'delete', id });
    expect(deleted.success, JSON.stringify(deleted)).toBe(true);
    expect(Boolean(deleted.data?.confirm?.token), 'confirmation on delete').toBe(cutsAccess);
    if (cutsAccess) await confirm(deleted);
    expect(json(await get(h.app, admin, url)).data.items).toEqual([]);
  });

  test('an unconfirmed port mapping is put back, and the ruleset with it', async () => {
    const added = await call('/api/firewall/redirect', { action: 'add', ...mapping });
    expect(ruleset()).toContain('"eth0" . tcp . 8080 : 192.168.1.10 . 80');
    const token = added.data.confirm.token as string;
    expect((await call('/api/sysconf/confirm', { token, action: 'revert' }, null)).success).toBe(true);
    expect(json(await get(h.app, admin, '/api/firewall/redirect')).data.items).toEqual([]);
    expect(ruleset()).not.toContain('192.168.1.10 . 80');
  });

  test('every kind of row reaches the one ruleset', async () => {
    for (const { url, row } of COLLECTIONS) await accepted(url, { action: 'add', ...row });
    const text = ruleset();
    expect(text).toContain('"eth0" . tcp . 8080 : 192.168.1.10 . 80');
    expect(text).toContain('oifname "eth0" ip saddr 192.168.1.0/24 snat ip to 203.0.113.3');
    expect(text).toContain('"eth0" . 203.0.113.4 : 192.168.1.20');
    expect(text).toContain('meta l4proto tcp th dport 23 reject');
    expect(text).toContain('ip saddr 192.168.1.128/25 goto fw_cl_r0');
    expect(text).toContain('fib daddr type local dnat ip to 192.168.1.30');
  });
});

describe('field errors land on their field', () => {
  test('port mapping: field rules and cross-record rules', async () => {
    const url = '/api/firewall/redirect';
    expect((await call(url, { action: 'add', ...mapping, extport: 0, intip: '192.168.1.300' })).errors).toEqual({
      extport: 'validation.port.range',
      intip: 'validation.ipv4',
    });
    expect((await call(url, { action: 'add', ...mapping, extport_end: 8000 })).errors).toEqual({ extport_end: 'validation.portRange.order' });
    expect((await call(url, { action: 'add', ...mapping, extport_end: 8090, intport: 81 })).errors).toEqual({ intport: 'validation.firewall.internalPortRange' });
    expect((await call(url, { action: 'add', ...mapping, wan: 'lan' })).errors).toEqual({ wan: 'validation.multiWan.notWan' });
    await accepted(url, { action: 'add', ...mapping });
    expect((await call(url, { action: 'add', ...mapping, name: 'web2', wan: '', proto: 'tcpudp' })).errors).toEqual({ extport: 'validation.network.portInUse' });
    // Same port on another WAN is another mapping.
    const other = await accepted(url, { action: 'add', ...mapping, name: 'web2', wan: 'wan2' });
    // Moving it onto wan1's port is refused on update too.
    expect((await call(url, { action: 'update', id: other.data.id, wan: 'wan1' })).errors).toEqual({ extport: 'validation.network.portInUse' });
  });

  test('NAT rules: SNAT target, options, known outgoing interface', async () => {
    const url = '/api/firewall/nat';
    const row = { name: 'pool', target: 'snat', outif: 'wan1', toaddr: '203.0.113.3' };
    expect((await call(url, { action: 'add', ...row, toaddr: '' })).errors).toEqual({ toaddr: 'validation.required' });
    expect((await call(url, { action: 'add', ...row, toaddr: '203.0.113' })).errors).toEqual({ toaddr: 'validation.ipv4' });
    expect((await call(url, { action: 'add', ...row, target: 'dnat' })).errors).toEqual({ target: 'validation.option' });
    expect((await call(url, { action: 'add', ...row, src: '10.0.0.0/33' })).errors).toEqual({ src: 'validation.accessIp' });
    expect((await call(url, { action: 'add', ...row, outif: 'wan9' })).errors).toEqual({ outif: 'validation.network.unknownInterface' });
    // The verdict travels next to the request verb and is stored as sent.
    const added = await accepted(url, { action: 'add', ...row, target: 'nonat', toaddr: '' });
    expect(added.data).toMatchObject({ target: 'nonat' });
    expect((await call(url, { action: 'update', id: added.data.id, target: 'snat' })).errors).toEqual({ toaddr: 'validation.required' });
  });

  test('host mapping: WAN only, public and private used once', async () => {
    const url = '/api/hostmapping';
    const row = { name: 'server', wan: 'wan1', public: '203.0.113.4', private: '192.168.1.20' };
    expect((await call(url, { action: 'add', ...row, wan: 'lan' })).errors).toEqual({ wan: 'validation.multiWan.notWan' });
    expect((await call(url, { action: 'add', ...row, public: '' })).errors).toEqual({ public: 'validation.required' });
    await accepted(url, { action: 'add', ...row });
    expect((await call(url, { action: 'add', ...row, name: 'b', private: '192.168.1.21' })).errors).toEqual({ public: 'validation.ipOverlap' });
    expect((await call(url, { action: 'add', ...row, name: 'c', public: '203.0.113.5' })).errors).toEqual({ private: 'validation.ipOverlap' });
  });

  test('filter rules: ports need TCP or UDP, ranges ordered, known interface', async () => {
    const url = '/api/firewall/filter';
    const row = { name: 'r', proto: 'icmp', dport: '23' };
    expect((await call(url, { action: 'add', ...row })).errors).toEqual({ dport: 'validation.firewall.portsNeedProtocol' });
    expect((await call(url, { action: 'add', ...row, dport: '', sport: '53' })).errors).toEqual({ sport: 'validation.firewall.portsNeedProtocol' });
    expect((await call(url, { action: 'add', ...row, proto: 'tcp', dport: '90-80' })).errors).toEqual({ dport: 'validation.portRange.order' });
    expect((await call(url, { action: 'add', ...row, proto: 'tcp', iface: 'eth9' })).errors).toEqual({ iface: 'validation.network.unknownInterface' });
    expect((await call(url, { action: 'add', ...row, proto: 'tcp', direction: 'both' })).errors).toEqual({ direction: 'validation.option' });
    const added = await accepted(url, { action: 'add', ...row, proto: 'tcp', iface: 'wan1' });
    // Switching the protocol of a stored rule with ports keeps the rule on its field.
    expect((await call(url, { action: 'update', id: added.data.id, proto: 'all' })).errors).toEqual({ dport: 'validation.firewall.portsNeedProtocol' });
  });

  test('connection limits: bounds and required addresses', async () => {
    const url = '/api/sessionlimit/rules';
    expect((await call(url, { action: 'add', name: 'x', ip: '', perip: 1_000_001 })).errors).toEqual({ ip: 'validation.accessIp', perip: 'validation.limit.range' });
    expect((await call('/api/sessionlimit', { udp: -1, tcp_established: 0 })).errors).toEqual({ udp: 'validation.limit.range', tcp_established: 'validation.tooBig' });
    const saved = await call('/api/sessionlimit', { perip: 100, exempt: ['192.168.1.10'] });
    expect(saved.success, JSON.stringify(saved)).toBe(true);
    expect(saved.data?.confirm).toBeUndefined();
    expect(json(await get(h.app, admin, '/api/sessionlimit')).data).toMatchObject({ perip: 100, udp: 800, exempt: ['192.168.1.10'] });
  });

  test('DMZ: one host per WAN, WAN only', async () => {
    const url = '/api/dmz';
    expect((await call(url, { action: 'add', wan: 'lan', host: '192.168.1.30' })).errors).toEqual({ wan: 'validation.multiWan.notWan' });
    await accepted(url, { action: 'add', wan: 'wan1', host: '192.168.1.30' });
    expect((await call(url, { action: 'add', wan: 'wan1', host: '192.168.1.31' })).errors).toEqual({ wan: 'validation.firewall.dmzExists' });
    await accepted(url, { action: 'add', wan: 'wan2', host: '192.168.1.31' });
  });

  test('LAN forward and share-net block: known interfaces, each list on its field', async () => {
    expect((await call('/api/firewall/lanforward', { enabled: true, lan: ['lan', 'nope'], rejlan: ['nope'] })).errors).toEqual({
      lan: 'validation.network.unknownInterface',
      rejlan: 'validation.network.unknownInterface',
    });
    expect((await call('/api/unshare', { enabled: true, ifname: ['lan2'] })).errors).toEqual({ ifname: 'validation.network.unknownInterface' });
    expect((await call('/api/unshare', { enabled: true, blacklist: ['x'] })).errors).toEqual({ blacklist: 'validation.accessIp' });
    const lanForward = await call('/api/firewall/lanforward', { enabled: true, lan: ['lan'] });
    expect(lanForward.success, JSON.stringify(lanForward)).toBe(true);
    expect(lanForward.data?.confirm).toBeUndefined();
    const share = await call('/api/unshare', { enabled: true, ifname: ['lan'], whitelist: ['192.168.1.10'] });
    expect(share.success, JSON.stringify(share)).toBe(true);
    expect(ruleset()).toContain('jump fw_share');
  });
});

describe('interfaces the firewall uses', () => {
  test('a WAN or LAN a firewall row names cannot be deleted until the row goes', async () => {
    const interfaces = json(await get(h.app, admin, '/api/network')).data.items as Array<{ id: string; ifname: string }>;
    const idOf = (name: string) => interfaces.find((row) => row.ifname === name)!.id;
    const mapped = await accepted('/api/firewall/redirect', { action: 'add', ...mapping, wan: 'wan2' });
    await accepted('/api/firewall/filter', { action: 'add', name: 'lan only', iface: 'lan' });
    expect(await call('/api/network', { action: 'delete', id: idOf('wan2') })).toMatchObject({ success: false, msg: 'validation.network.inUse' });
    expect(await call('/api/network', { action: 'delete', id: idOf('lan') })).toMatchObject({ success: false, msg: 'validation.network.inUse' });
    await accepted('/api/firewall/redirect', { action: 'delete', id: mapped.data.id });
    await accepted('/api/network', { action: 'delete', id: idOf('wan2') });
    expect((json(await get(h.app, admin, '/api/network')).data.items as Array<{ ifname: string }>).map((row) => row.ifname)).not.toContain('wan2');
  });
});

describe('visitor role', () => {
  test('reads the firewall but every write is refused with forbidden', async () => {
    await accepted('/api/firewall/redirect', { action: 'add', ...mapping });
    const visitor = await addAccount(h, admin, 'viewer', 2);
    const client = await login(h.app, 'viewer', visitor.password);
    expect(json(await get(h.app, client, '/api/firewall/redirect')).data.items).toHaveLength(1);
    const writes: Array<[string, object]> = [
      ['/api/firewall/redirect', { action: 'add', ...mapping, extport: 9090 }],
      ['/api/firewall/nat', { action: 'add', name: 'a' }],
      ['/api/hostmapping', { action: 'add', name: 'server', wan: 'wan1', public: '203.0.113.4', private: '192.168.1.20' }],
      ['/api/firewall/filter', { action: 'add', name: 'r' }],
      ['/api/firewall/lanforward', { enabled: true }],
      ['/api/unshare', { enabled: true }],
      ['/api/sessionlimit', { perip: 1 }],
      ['/api/sessionlimit/rules', { action: 'add', name: 'x', ip: '192.168.1.5' }],
      ['/api/dmz', { action: 'add', wan: 'wan1', host: '192.168.1.30' }],
    ];
    for (const [url, body] of writes) expect(await call(url, body, client), url).toMatchObject({ success: false, msg: 'forbidden' });
    expect(json(await get(h.app, admin, '/api/firewall/redirect')).data.items).toHaveLength(1);
  });
});
