import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openvpnServer, writeSchema, type AnyEntity, type OpenvpnServer } from '@portico/schema';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { checkOpenvpnConf, renderOpenvpnServer } from '../src/domains/vpn-server/vpn-server-openvpn.js';
import { runCommand } from '../src/engine/command-runner.js';

let h: Harness;
let admin: Client;
beforeAll(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

const clients = (body: Record<string, unknown>) => post(h.app, admin, '/api/auth/openvpn/clients', body).then(json);
const pkiDir = () => join(h.stateDir, 'vpn-server/openvpn-pki');

function settings(input: Record<string, unknown>): OpenvpnServer {
  const parsed = writeSchema(openvpnServer as unknown as AnyEntity, 'update').parse(input) as OpenvpnServer;
  return { ...(openvpnServer.schema.parse({}) as OpenvpnServer), ...parsed };
}

describe('OpenVPN server settings', () => {
  test('§9 defaults: port 1194, udp, tun, lzo, fallback cipher BF-CBC', async () => {
    const data = json(await get(h.app, admin, '/api/auth/openvpn')).data;
    expect(data).toMatchObject({ port: 1194, proto: 'udp', dev: 'tun', compress: 'lzo', cipher: 'BF-CBC', enabled: false });
  });

  test('the server needs the address clients reach it by', async () => {
    const answer = json(await post(h.app, admin, '/api/auth/openvpn', { enabled: true }));
    expect(answer).toMatchObject({ success: false, errors: { host: 'validation.required' } });
  });

  test('rendered: modern ciphers negotiated, BF-CBC only as fallback with the legacy provider; no control characters pass', () => {
    const conf = renderOpenvpnServer(settings({ enabled: true, host: 'vpn.example.org', push_routes: '192.168.11.0/24', msdns: '192.168.11.1' }), '/var/lib/portico');
    expect(conf).toContain('data-ciphers AES-256-GCM:AES-128-GCM:CHACHA20-POLY1305\n');
    expect(conf).toContain('providers legacy default\ndata-ciphers-fallback BF-CBC\n');
    expect(conf).toContain('push "route 192.168.11.0 255.255.255.0"');
    expect(conf).toContain('crl-verify /var/lib/portico/vpn-server/openvpn-pki/crl.pem');
    expect(checkOpenvpnConf(conf)).toEqual([]);
    const aes = renderOpenvpnServer(settings({ enabled: true, host: 'h', cipher: 'AES-256-CBC', compress: 'none' }), '/var/lib/portico');
    expect(aes).not.toContain('providers');
    expect(aes).not.toContain('compress');
    expect(() => renderOpenvpnServer(settings({ enabled: true, host: 'h' }), '/var/lib/port ico')).toThrow();
    expect(checkOpenvpnConf('port 1194\nscript-security 2 x\nup "/bin/sh -c"\n')).toHaveLength(1);
    expect(writeSchema(openvpnServer as unknown as AnyEntity, 'update').safeParse({ host: 'a\nb' }).success).toBe(false);
  });

  test.runIf(existsSync('/usr/sbin/openvpn'))('OpenVPN itself parses the rendered file', async () => {
    const conf = renderOpenvpnServer(settings({ enabled: true, host: 'h', proto: 'tcp', dev: 'tap', push_routes: '10.0.0.0/8 172.16.0.0/12' }), h.stateDir);
    const file = join(h.stateDir, 'probe.conf');
    await import('node:fs/promises').then((fs) => fs.writeFile(file, conf));
    const result = await runCommand(['openvpn', '--config', file, '--verb', '0', '--genkey', 'secret', '/dev/null']);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });
});

describe('OpenVPN client certificates', () => {
  test('names: not empty, no hyphen, unique ("client name exists")', async () => {
    expect(await clients({ action: 'add', name: '' })).toMatchObject({ success: false, errors: { name: 'validation.required' } });
    expect(await clients({ action: 'add', name: 'road-warrior' })).toMatchObject({ success: false, errors: { name: 'validation.openvpn.hyphen' } });
    expect(await clients({ action: 'add', name: '../etc' })).toMatchObject({ success: false, errors: { name: 'validation.openvpn.clientName' } });
    expect(await clients({ action: 'add', name: 'alice', remark: 'laptop' })).toMatchObject({ success: true });
    expect(await clients({ action: 'add', name: 'alice' })).toMatchObject({ success: false, msg: 'msg.openvpn.clientExists' });
    expect(await clients({ action: 'add', name: 'ALICE' })).toMatchObject({ success: false, msg: 'msg.openvpn.clientExists' });
    const list = json(await get(h.app, admin, '/api/auth/openvpn/clients')).data.items;
    expect(list).toEqual([expect.objectContaining({ name: 'alice', remark: 'laptop', status: 'valid', revoked: null })]);
    expect(statSync(join(pkiDir(), 'clients/alice.key')).mode & 0o777).toBe(0o600);
  });

  test('the profile carries the CA, the certificate and the key; only for a saved server address', async () => {
    const refused = json(await post(h.app, admin, '/api/auth/openvpn/exportconf', { name: 'alice' }));
    expect(refused).toMatchObject({ success: false, msg: 'msg.openvpn.noHost' });
    expect(json(await post(h.app, admin, '/api/auth/openvpn', { host: '198.51.100.2' })).success).toBe(true);
    const res = await post(h.app, admin, '/api/auth/openvpn/exportconf', { name: 'alice' });
    expect(res.headers['content-disposition']).toBe('attachment; filename="alice.ovpn"');
    const profile = res.body;
    expect(profile).toContain('remote 198.51.100.2 1194\n');
    expect(profile).toContain('verify-x509-name portico-openvpn-server name\n');
    expect(profile).toContain(readFileSync(join(pkiDir(), 'clients/alice.key'), 'utf8').trim());
    expect(profile).toContain(readFileSync(join(pkiDir(), 'ca.crt'), 'utf8').trim());
    expect(json(await post(h.app, admin, '/api/auth/openvpn/exportconf', { name: 'nobody' }))).toMatchObject({ success: false, msg: 'msg.notFound' });
  });

  test('revocation: "certificate revoked", then "already revoked"; the CRL lists it; no profile for it', async () => {
    const crlBefore = readFileSync(join(pkiDir(), 'crl.pem'), 'utf8');
    expect(await clients({ action: 'revoke', name: 'alice' })).toMatchObject({ success: true, data: { msg: 'msg.openvpn.revoked' } });
    expect(await clients({ action: 'revoke', name: 'alice' })).toMatchObject({ success: false, msg: 'msg.openvpn.alreadyRevoked' });
    const crl = readFileSync(join(pkiDir(), 'crl.pem'), 'utf8');
    expect(crl).not.toBe(crlBefore);
    const serial = json(await get(h.app, admin, '/api/auth/openvpn/clients')).data.items[0].serial as string;
    const text = (await runCommand(['openssl', 'crl', '-noout', '-text', '-in', join(pkiDir(), 'crl.pem')])).stdout;
    expect(text.toLowerCase().replace(/:/g, '')).toContain(serial.toLowerCase());
    expect(json(await post(h.app, admin, '/api/auth/openvpn/exportconf', { name: 'alice' }))).toMatchObject({ success: false, msg: 'msg.openvpn.alreadyRevoked' });
  });

  test('deleting a client removes its row and key; a valid one is revoked first', async () => {
    expect(await clients({ action: 'add', name: 'bob' })).toMatchObject({ success: true });
    expect(await clients({ action: 'delete', name: 'bob' })).toMatchObject({ success: true });
    expect(existsSync(join(pkiDir(), 'clients/bob.key'))).toBe(false);
    expect(json(await get(h.app, admin, '/api/auth/openvpn/clients')).data.items.map((c: { name: string }) => c.name)).toEqual(['alice']);
    const text = (await runCommand(['openssl', 'crl', '-noout', '-text', '-in', join(pkiDir(), 'crl.pem')])).stdout;
    expect(text.match(/Serial Number/g)).toHaveLength(2);
  });

  test('the server certificate can be obtained again; status says STOPPED while nothing runs', async () => {
    const before = readFileSync(join(pkiDir(), 'server.crt'), 'utf8');
    expect(json(await post(h.app, admin, '/api/auth/openvpn/server', { action: 'reissue' }))).toMatchObject({ success: true, data: { msg: 'msg.openvpn.serverReissued' } });
    expect(readFileSync(join(pkiDir(), 'server.crt'), 'utf8')).not.toBe(before);
    expect(json(await get(h.app, admin, '/api/auth/openvpn/status')).data).toEqual({ running: false, sessions: [] });
  });
});

describe('the CA page and the client key pairs', () => {
  test('the CA is shown; a new one issues every valid client again and empties the CRL', async () => {
    expect(await clients({ action: 'add', name: 'carol' })).toMatchObject({ success: true });
    const before = json(await get(h.app, admin, '/api/auth/openvpn/ca')).data;
    expect(before.subject).toBe('CN=Portico OpenVPN CA');
    expect(before.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const carolBefore = json(await get(h.app, admin, '/api/rsa')).data.items.find((c: { name: string }) => c.name === 'carol');
    expect(json(await post(h.app, admin, '/api/auth/openvpn/ca', { action: 'regenerate' }))).toMatchObject({ success: true, data: { msg: 'msg.openvpn.caRegenerated' } });
    const after = json(await get(h.app, admin, '/api/auth/openvpn/ca')).data;
    expect(after.fingerprint).not.toBe(before.fingerprint);
    const items = json(await get(h.app, admin, '/api/rsa')).data.items as Array<{ name: string; serial: string; status: string }>;
    const carol = items.find((c) => c.name === 'carol')!;
    expect(carol.serial).not.toBe(carolBefore.serial);
    // The new certificate verifies against the new CA; the revoked client stays revoked.
    const file = join(h.stateDir, 'carol.crt');
    const { writeFile } = await import('node:fs/promises');
    expect(items.find((c) => c.name === 'alice')?.status).toBe('revoked');
    const profile = (await post(h.app, admin, '/api/auth/openvpn/exportconf', { name: 'carol' })).body;
    await writeFile(file, profile.slice(profile.indexOf('<cert>\n') + 7, profile.indexOf('</cert>')));
    const verdict = await runCommand(['openssl', 'verify', '-CAfile', join(pkiDir(), 'ca.crt'), '-crl_check', '-CRLfile', join(pkiDir(), 'crl.pem'), file]);
    expect(verdict.stdout).toContain(': OK');
  });
});
