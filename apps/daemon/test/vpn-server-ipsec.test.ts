import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ipsecPeer, ipsecPeerConflicts, writeSchema, type AnyEntity, type IpsecPeer } from '@portico/schema';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { checkSwanctlServer, renderSwanctlSecrets, renderSwanctlServer } from '../src/domains/vpn-server/vpn-server-ipsec.js';
import { parseListSas, refusalReader } from '../src/domains/vpn-server/vpn-server-ipsec-status.js';
import { readIpsecServerLog } from '../src/domains/vpn-server/vpn-server-ipsec-runtime.js';
import { IPSEC_FILES } from '../src/domains/vpn-server/vpn-server-ipsec.js';
import { IKE_FILES } from '../src/domains/network/network-ike.js';
import { BoundedLog } from '../src/domains/network/network-ike-daemon.js';
import { NETWORK_FILES } from '../src/domains/network/network-config.js';

let h: Harness;
let admin: Client;
beforeAll(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

const write = (body: Record<string, unknown>) => post(h.app, admin, '/api/auth/ipsec', body).then(json);
const base = { name: 'branch1', remote_addr: '198.51.100.2', local_subnets: '192.168.11.0/24', peer_subnets: '10.20.0.0/24', psk: 'secret-key-1' };

function peer(input: Record<string, unknown>): IpsecPeer {
  const { id, ...fields } = input;
  const parsed = writeSchema(ipsecPeer as unknown as AnyEntity, 'add').parse({ ...base, ...fields }) as IpsecPeer;
  return { ...(ipsecPeer.schema.parse({ ...parsed, id: String(id ?? '1') }) as IpsecPeer) };
}

describe('IPsec server peers: spec §5 rules on the write path, errors on the right field', () => {
  test('a valid peer is added, listed without its key, and rendered', async () => {
    const added = await write({ action: 'add', ...base });
    expect(added).toMatchObject({ success: true });
    const list = json(await get(h.app, admin, '/api/auth/ipsec')).data;
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ name: 'branch1', ike: 'ikev2', ipsec_mode: 'main', enabled: true });
    expect(list.items[0].psk).toBeUndefined();
    const conf = readFileSync(join(h.stateDir, 'rendered', IPSEC_FILES.connections), 'utf8');
    expect(conf).toContain('\tbranch1 {\n\t\tversion = 2\n');
    const secrets = join(h.stateDir, 'rendered', IPSEC_FILES.secrets);
    expect(readFileSync(secrets, 'utf8')).toContain(`secret = 0x${Buffer.from('secret-key-1').toString('hex')}`);
    expect(statSync(secrets).mode & 0o777).toBe(0o600);
  });

  test('IKEv1 allows one peer subnet; aggressive mode only with IKEv1; IDs differ; a key is required', async () => {
    expect(await write({ action: 'add', ...base, name: 'v1', ike: 'ikev1', peer_subnets: '10.1.0.0/24 10.2.0.0/24' })).toMatchObject({
      success: false,
      errors: { peer_subnets: 'validation.ipsec.ikev1Subnets' },
    });
    expect(await write({ action: 'add', ...base, name: 'v2', ipsec_mode: 'aggressive' })).toMatchObject({ errors: { ipsec_mode: 'validation.ipsec.aggressiveIkev1' } });
    expect(await write({ action: 'add', ...base, name: 'same', local_id: 'gw.example', remote_id: 'gw.example' })).toMatchObject({
      errors: { remote_id: 'validation.ipsec.sameId' },
    });
    const { psk: _psk, ...noKey } = base;
    expect(await write({ action: 'add', ...noKey, name: 'nokey' })).toMatchObject({ errors: { psk: 'validation.required' } });
    expect(await write({ action: 'add', ...base, name: 'any', remote_addr: '' })).toMatchObject({ errors: { remote_id: 'validation.ipsec.anyPeerNeedsId' } });
  });

  test('peer subnets are IPv4 CIDRs separated by single spaces', async () => {
    for (const bad of ['10.0.0.0/24,10.1.0.0/24', '10.0.0.1/24', '10.0.0.0/24  10.1.0.0/24', 'fe80::/64']) {
      expect(await write({ action: 'add', ...base, name: 'subnets', peer_subnets: bad })).toMatchObject({ errors: { peer_subnets: 'validation.peerSubnets' } });
    }
  });

  test('hostile values never reach a file: newlines, braces, quotes and includes are refused by field', async () => {
    const hostile: Array<[string, string]> = [
      ['name', 'x }\ninclude /etc/shadow'],
      ['local_id', 'a"b'],
      ['remote_id', 'id {\n'],
      ['remote_addr', '1.2.3.4\nremote_addrs = %any'],
      ['psk', 'key\nsecret = 0x00'],
      ['local_subnets', '10.0.0.0/8\n'],
    ];
    for (const [field, value] of hostile) {
      const answer = await write({ action: 'add', ...base, name: 'hostile', [field]: value });
      expect(answer.success, field).toBe(false);
      expect(Object.keys(answer.errors ?? {}), field).toContain(field);
    }
  });

  test('names are unique, an address and identity serve one peer', async () => {
    expect(await write({ action: 'add', ...base, peer_subnets: '10.30.0.0/24' })).toMatchObject({ errors: { name: 'msg.nameExists', remote_addr: 'validation.ipsec.peerTaken' } });
  });

  test('IKEv1 main mode picks the key by address: two such peers cannot share one', () => {
    const first = { name: 'a', ike: 'ikev1' as const, ipsec_mode: 'main' as const, remote_addr: '198.51.100.2', remote_id: 'a.example' };
    expect(ipsecPeerConflicts({ ...first, name: 'b', remote_id: 'b.example' }, [first])).toEqual({ remote_addr: 'validation.ipsec.peerTaken' });
    expect(ipsecPeerConflicts({ ...first, name: 'b', remote_id: 'b.example', ike: 'ikev2' }, [first])).toEqual({});
  });

  test('the key conflicts with the L2TP/IPsec key', () => {
    expect(ipsecPeerConflicts({ name: 'a', psk: 'same' }, [], 'same')).toEqual({ psk: 'validation.ipsec.pskL2tp' });
    expect(ipsecPeerConflicts({ name: 'a', psk: 'other' }, [], 'same')).toEqual({});
  });

  test('disabled or deleted: the files go, the IKE control file says stopped', async () => {
    const id = json(await get(h.app, admin, '/api/auth/ipsec')).data.items[0].id;
    expect(await write({ action: 'update', id, enabled: false })).toMatchObject({ success: true });
    const rendered = (target: string) => join(h.stateDir, 'rendered', target);
    expect(() => statSync(rendered(IPSEC_FILES.connections))).toThrow();
    expect(() => statSync(rendered(IPSEC_FILES.secrets))).toThrow();
    expect(readFileSync(rendered(IKE_FILES.control), 'utf8')).toBe('{"enabled":false}\n');
    expect(() => statSync(rendered(IKE_FILES.charon))).toThrow();
    expect(await write({ action: 'update', id, enabled: true })).toMatchObject({ success: true });
    expect(statSync(rendered(IPSEC_FILES.connections)).isFile()).toBe(true);
    // The one charon's top file includes the server's connections; its control file says run.
    expect(readFileSync(rendered(IKE_FILES.swanctl), 'utf8')).toContain(`include ${IPSEC_FILES.connections}\n`);
    expect(readFileSync(rendered(IKE_FILES.control), 'utf8')).toBe('{"enabled":true}\n');
    expect(await write({ action: 'delete', id })).toMatchObject({ success: true });
    expect(() => statSync(rendered(IPSEC_FILES.connections))).toThrow();
  });

  test('status on the sim driver: stopped, no SAs', async () => {
    expect(json(await get(h.app, admin, '/api/auth/ipsec/status')).data).toEqual({ running: false, sas: [], refusals: [] });
    expect(await post(h.app, admin, '/api/auth/ipsec/status', { action: 'kick', uniqueId: '1; rm -rf /' }).then(json)).toMatchObject({ success: false });
  });
});

describe('IPsec server rendering and its checker', () => {
  test('IKEv1 aggressive, IDs, several subnets (IKEv2), all pass the checker', () => {
    const peers = [
      peer({ id: '1', name: 'a', ike: 'ikev1', ipsec_mode: 'aggressive', local_id: 'gw@example.org', remote_id: 'branch.example.org' }),
      peer({ id: '2', name: 'b', remote_addr: '', remote_id: 'roamer', peer_subnets: '10.1.0.0/24 10.2.0.0/16', local_subnets: '192.168.0.0/24 192.168.1.0/24' }),
    ];
    const conf = renderSwanctlServer(peers);
    expect(conf).toContain('\ta {\n\t\tversion = 1\n\t\taggressive = yes\n');
    expect(conf).toContain('remote_ts = 10.1.0.0/24,10.2.0.0/16');
    expect(conf).toContain('remote_addrs = %any');
    expect(conf).toContain('\t\t\tid = roamer\n');
    expect(conf.endsWith('}\ninclude secrets.conf\n')).toBe(true);
    expect(checkSwanctlServer(conf)).toEqual([]);
    const secrets = renderSwanctlSecrets(peers, { psk: 'l2tp key' });
    expect(checkSwanctlServer(secrets)).toEqual([]);
    expect(secrets).toContain('id-remote = branch.example.org');
    expect(checkSwanctlServer(renderSwanctlServer(peers, { psk: 'x' }))).toEqual([]);
  });

  test('a value that slipped past the schema is refused by the renderer', () => {
    const good = peer({});
    expect(() => renderSwanctlServer([{ ...good, name: 'a\nb' }])).toThrow();
    expect(() => renderSwanctlServer([{ ...good, remote_id: 'x}' }])).toThrow();
    expect(() => renderSwanctlServer([{ ...good, peer_subnets: '10.0.0.0/24,%any' }])).toThrow();
    expect(() => renderSwanctlSecrets([{ ...good, psk: 'a\u0000b' }])).toThrow();
  });

  test('the checker refuses what swanctl would read differently', () => {
    const conf = renderSwanctlServer([peer({})]);
    const tampered = [
      conf.replace('version = 2', 'version = "2"'),
      conf.replace('remote_addrs = 198.51.100.2', 'remote_addrs = 198.51.100.2 # x'),
      conf.replace('include secrets.conf', 'include ../../etc/shadow'),
      conf.replace('dpd_delay = 30s', 'updown = /bin/sh'),
      conf.replace('local_ts = 192.168.11.0/24', 'local_ts = 0.0.0.0/0 {'),
      conf.replace('\t\tversion', '\tversion'),
      conf.slice(0, -2),
      `${conf}secrets {\n\tike-x {\n\t\tsecret = plain\n\t}\n}\n`,
    ];
    for (const text of tampered) expect(checkSwanctlServer(text).length, text).toBeGreaterThan(0);
  });
});

describe('charon output read as hostile text', () => {
  const sample = [
    "branch1: #3, ESTABLISHED, IKEv2, 2b2a0b1e6fd3b2c9_i 9f0d8ad4c0e9a5b8_r*",
    "  local  '203.0.113.1' @ 203.0.113.1[500]",
    "  remote 'branch.example.org' @ 198.51.100.2[500]",
    '  AES_CBC-128/HMAC_SHA2_256_128/PRF_HMAC_SHA2_256/MODP_3072',
    '  established 42s ago, rekeying in 13393s',
    '  branch1: #5, reqid 1, INSTALLED, TUNNEL, ESP:AES_CBC-128/HMAC_SHA2_256_128',
    '    installed 42s ago, rekeying in 3238s, expires in 3953s',
    '    in  c2b2b8b5,   1084 bytes,    12 packets,     0s ago',
    '    out cf3b6163,    336 bytes,     4 packets,     0s ago',
    '    local  192.168.11.0/24',
    '    remote 10.20.0.0/24',
    "evil: #4, CONNECTING, IKEv1, 1111111111111111_i* 0000000000000000_r",
    "  remote '\u001b[31m<script>\u0007' @ 198.51.100.9[500]",
    'garbage: #x, ESTABLISHED',
    '    in  ffffffff, 999999999999999999999999 bytes,',
  ].join('\n');

  test('SAs: peer, address, since, bytes; control characters and nonsense dropped', () => {
    const sas = parseListSas(sample, 1_000_000);
    expect(sas).toHaveLength(2);
    expect(sas[0]).toEqual({ name: 'branch1', uniqueId: '3', state: 'established', version: 'IKEv2', peer: 'branch.example.org', address: '198.51.100.2', since: 958_000, rx: 1084, tx: 336, children: 1 });
    expect(sas[1]).toMatchObject({ name: 'evil', state: 'connecting', since: null, rx: 0 });
    expect(sas[1]!.peer).not.toMatch(/[\u0000-\u001f]/);
  });

  test('refusals: a wrong key and an unknown identity read as Auth Failed, by address', () => {
    const reader = refusalReader('msg.authFailed');
    reader.line('12[IKE] <1> 198.51.100.7 is initiating an IKE_SA', 1);
    reader.line("12[IKE] <branch1|1> tried 1 shared key for 'gw' - 'branch.example.org', but MAC mismatched", 2);
    reader.line('13[IKE] <2> 198.51.100.8 is initiating a Main Mode IKE_SA', 3);
    reader.line('13[CFG] <2> no matching peer config found', 4);
    reader.line('14[IKE] <3> IKE_SA established', 5);
    expect(reader.refusals()).toEqual([
      { name: '', address: '198.51.100.8', at: 4, msg: 'msg.authFailed' },
      { name: 'branch1', address: '198.51.100.7', at: 2, msg: 'msg.authFailed' },
    ]);
  });

  test('the log stays bounded and reads back newest last', async () => {
    const root = mkdtempSync(join(tmpdir(), 'portico-ipsec-log-'));
    try {
      const log = new BoundedLog(join(root, NETWORK_FILES.ipsecLog), () => 0, 2000);
      for (let i = 0; i < 100; i += 1) await log.write([`line ${i}\u0007`]);
      expect(statSync(join(root, NETWORK_FILES.ipsecLog)).size).toBeLessThanOrEqual(2000);
      expect(statSync(`${join(root, NETWORK_FILES.ipsecLog)}.1`).size).toBeLessThanOrEqual(2000);
      const read = await readIpsecServerLog(root);
      expect(read.lines.at(-1)).toBe('1970-01-01T00:00:00.000Z line 99?');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
