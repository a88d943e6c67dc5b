import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Filter } from 'ldapts';
import { hotspotLdap, hotspotZone, writeSchema, type AnyEntity } from '@portico/schema';
import { hotspotConfigOf } from '../src/domains/hotspot/hotspot-config.js';
import { ldapAuthenticate, type LdapSettings } from '../src/domains/hotspot/ldap/ldap-auth.js';
import { dnFromTemplate, escapeDnValue, escapeFilterValue, isLdapUserName, userFilter } from '../src/domains/hotspot/ldap/ldap-escape.js';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { portalLogin } from './hotspot-fixture.js';
import { ensureSlapd, PEOPLE, SERVICE, startSlapd, SUFFIX, type Slapd } from './hotspot-ldap-fixture.js';

/**
 * LDAP sign-in against Debian's slapd on loopback (hotspot-ldap-fixture.ts): simple bind with a
 * DN template and search-then-bind with a service account, plain, StartTLS and LDAPS with the
 * test's own CA; hostile user names; the portal's messages and its guessing limit.
 */

describe('escaping of user names (RFC 4514 DN values, RFC 4515 filter values)', () => {
  test('DN values', () => {
    expect(escapeDnValue('Smith, John+#1')).toBe('Smith\\, John\\+#1');
    expect(escapeDnValue('#lead')).toBe('\\#lead');
    expect(escapeDnValue(' both ')).toBe('\\ both\\ ');
    expect(escapeDnValue('a"b\\c<d>e;f')).toBe('a\\"b\\\\c\\<d\\>e\\;f');
    expect(escapeDnValue('nul\u0000')).toBe('nul\\00');
    expect(escapeDnValue('a=b')).toBe('a=b');
    expect(dnFromTemplate('uid=%s,ou=people,dc=example,dc=org', 'x,ou=admins')).toBe('uid=x\\,ou=admins,ou=people,dc=example,dc=org');
    expect(() => dnFromTemplate('uid=%s,cn=%s', 'x')).toThrow();
  });

  test('filter values', () => {
    expect(escapeFilterValue(Filter, '*)(uid=*')).toBe('\\2a\\29\\28uid=\\2a');
    expect(escapeFilterValue(Filter, 'a\\b\u0000')).toBe('a\\5cb\\00');
    expect(userFilter(Filter, 'uid', 'o*brien(x)')).toBe('(uid=o\\2abrien\\28x\\29)');
    expect(() => userFilter(Filter, 'uid)(cn', 'x')).toThrow();
  });

  test('names that are never tried', () => {
    for (const name of ['', '   ', 'a\nb', 'a\u0000', 'x'.repeat(65), '\u202eevil', 'a\ud800']) expect(isLdapUserName(name), JSON.stringify(name)).toBe(false);
    for (const name of ['alice', 'Smith, John+#1', '张三', '*)(uid=*']) expect(isLdapUserName(name)).toBe(true);
  });

  test('the settings refuse malformed DNs, templates, attributes and certificates', () => {
    const parse = (input: Record<string, unknown>) => writeSchema(hotspotLdap as unknown as AnyEntity, 'update').safeParse(input);
    expect(parse({ dn: 'uid=%s,ou=people,dc=example,dc=org' }).success).toBe(true);
    expect(parse({ dn: 'ou=people,dc=example,dc=org' }).success).toBe(false);
    expect(parse({ dn: 'uid=%s,cn=%s' }).success).toBe(false);
    expect(parse({ basedn: 'not a dn' }).success).toBe(false);
    expect(parse({ attribute: 'uid)(cn' }).success).toBe(false);
    expect(parse({ ca: ['-----BEGIN CERTIFICATE-----', 'AAAA', '-----END CERTIFICATE-----'] }).success).toBe(true);
    expect(parse({ ca: ['-----BEGIN CERTIFICATE-----', 'AA AA', '-----END CERTIFICATE-----'] }).success).toBe(false);
    expect(parse({ ca: ['-----BEGIN PRIVATE KEY-----', 'AAAA', '-----END PRIVATE KEY-----'] }).success).toBe(false);
    expect(parse({ enabled: true, bindtype: 'search' }).success).toBe(false);
  });
});

describe('service zones', () => {
  test('zones of auth model ldap, sms and radius are served by the portal with their one method; wifidog zones by no form method; zones without sign-in are not', () => {
    const zone = (id: string, authmodel: string) => ({ id, data: { ...(hotspotZone.schema.parse({ id, name: id, ifname: 'lan', authmodel }) as object) } });
    const config = hotspotConfigOf({ hotspotZone: [zone('a', 'webportal'), zone('b', 'ldap'), zone('c', 'sms'), zone('d', 'wifidog'), zone('e', 'radius'), zone('f', 'none')] });
    expect(config.zones.map((z) => [z.name, z.methods, z.externalPortal])).toEqual([
      ['a', ['voucher'], undefined],
      ['b', ['ldap'], undefined],
      ['c', ['sms'], undefined],
      ['d', [], 'wifidog'],
      ['e', ['local'], undefined],
    ]);
  });
});

let slapd: Slapd;
let skip: string | null = null;
beforeAll(async () => {
  skip = await ensureSlapd();
  if (!skip) slapd = await startSlapd();
}, 900_000);
afterAll(async () => {
  await slapd?.stop();
});

const base = (): LdapSettings => ({
  server: '127.0.0.1',
  port: slapd.ldapPort,
  security: 'none',
  ca: [],
  basedn: `ou=people,${SUFFIX}`,
  bindtype: 'simple',
  dn: `uid=%s,ou=people,${SUFFIX}`,
  account: SERVICE.dn,
  passwd: SERVICE.password,
  attribute: 'uid',
  timeout: 5,
});
const [alice, , smith, obrien] = PEOPLE;

describe('against slapd', () => {
  test('the directory runs', () => {
    expect(skip).toBeNull();
  });

  test('simple bind with a DN template: the right password, a wrong one, an unknown user, a hostile name', async () => {
    const s = base();
    expect(await ldapAuthenticate(s, alice.uid, alice.password)).toEqual({ ok: true, dn: `uid=alice,ou=people,${SUFFIX}` });
    expect(await ldapAuthenticate(s, alice.uid, 'wrong')).toMatchObject({ ok: false, error: 'refused' });
    expect(await ldapAuthenticate(s, 'nobody', 'whatever')).toMatchObject({ ok: false, error: 'refused' });
    // The comma and plus of the name are escaped into the DN: the entry is found and bound.
    expect(await ldapAuthenticate(s, smith.uid, smith.password)).toEqual({ ok: true, dn: `uid=Smith\\, John\\+#1,ou=people,${SUFFIX}` });
    // A name that tries to name another entry binds nothing.
    expect(await ldapAuthenticate(s, `alice,ou=people,${SUFFIX}`, alice.password)).toMatchObject({ ok: false, error: 'refused' });
    // No password is an unauthenticated bind, which the directory would accept: never tried.
    expect(await ldapAuthenticate(s, alice.uid, '')).toMatchObject({ ok: false, error: 'invalidUser' });
  });

  test('search then bind with a service account: each failure told apart', async () => {
    const s = { ...base(), bindtype: 'search' as const };
    expect(await ldapAuthenticate(s, alice.uid, alice.password)).toEqual({ ok: true, dn: `uid=alice,ou=people,${SUFFIX}` });
    expect(await ldapAuthenticate(s, alice.uid, 'wrong')).toMatchObject({ ok: false, error: 'wrongPassword' });
    expect(await ldapAuthenticate(s, 'nobody', 'whatever')).toMatchObject({ ok: false, error: 'unknownUser' });
    expect(await ldapAuthenticate(s, obrien.uid, obrien.password)).toMatchObject({ ok: true });
    expect(await ldapAuthenticate(s, smith.uid, smith.password)).toMatchObject({ ok: true });
    // Filter injection: a wildcard or a closing parenthesis is a literal character of the name.
    expect(await ldapAuthenticate(s, '*', alice.password)).toMatchObject({ ok: false, error: 'unknownUser' });
    expect(await ldapAuthenticate(s, 'al*', alice.password)).toMatchObject({ ok: false, error: 'unknownUser' });
    expect(await ldapAuthenticate(s, '*)(uid=alice', alice.password)).toMatchObject({ ok: false, error: 'unknownUser' });
    expect(await ldapAuthenticate(s, 'o*', obrien.password)).toMatchObject({ ok: false, error: 'unknownUser' });
    // Two entries answer to one name: neither signs in.
    expect(await ldapAuthenticate({ ...s, basedn: SUFFIX }, 'twin', 'Twin-pass1')).toMatchObject({ ok: false, error: 'misconfigured' });
    // A wrong service password is the administrator's problem, not the guest's.
    expect(await ldapAuthenticate({ ...s, passwd: 'wrong' }, alice.uid, alice.password)).toMatchObject({ ok: false, error: 'misconfigured' });
  });

  test('StartTLS and LDAPS verify the server against the CA the administrator gives', async () => {
    const starttls = { ...base(), security: 'starttls' as const, ca: slapd.caLines };
    expect(await ldapAuthenticate(starttls, alice.uid, alice.password)).toMatchObject({ ok: true });
    const ldaps = { ...base(), security: 'ldaps' as const, port: slapd.ldapsPort, ca: slapd.caLines, bindtype: 'search' as const };
    expect(await ldapAuthenticate(ldaps, alice.uid, alice.password)).toMatchObject({ ok: true });
    expect(await ldapAuthenticate(ldaps, alice.uid, 'wrong')).toMatchObject({ ok: false, error: 'wrongPassword' });
    // A certificate the given CA did not sign is refused before any password is sent.
    expect(await ldapAuthenticate({ ...starttls, ca: slapd.otherCaLines }, alice.uid, alice.password)).toMatchObject({ ok: false, error: 'unreachable' });
    expect(await ldapAuthenticate({ ...ldaps, ca: slapd.otherCaLines }, alice.uid, alice.password)).toMatchObject({ ok: false, error: 'unreachable' });
    // LDAPS spoken to the plain port fails as a connection, not as a password.
    expect(await ldapAuthenticate({ ...ldaps, port: slapd.ldapPort, timeout: 2 }, alice.uid, alice.password)).toMatchObject({ ok: false, error: 'unreachable' });
  });

  test('a certificate from the right CA that names another server is refused, with StartTLS as with LDAPS', async () => {
    const other = await startSlapd({ subjectAltName: 'DNS:localhost,DNS:ldap.example.org' });
    try {
      const settings = { ...base(), ca: other.caLines };
      for (const [security, port] of [['starttls', other.ldapPort], ['ldaps', other.ldapsPort]] as const) {
        expect(await ldapAuthenticate({ ...settings, security, port }, alice.uid, alice.password)).toMatchObject({ ok: false, error: 'unreachable', detail: expect.stringMatching(/altnames|Hostname|IP/) });
      }
      // The same directory without TLS answers: it is the name that was refused.
      expect(await ldapAuthenticate({ ...settings, port: other.ldapPort }, alice.uid, alice.password)).toMatchObject({ ok: true });
    } finally {
      await other.stop();
    }
  });

  test('a server that accepts the connection and never answers is unreachable once the time-out passes', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      expect(await ldapAuthenticate({ ...base(), port, timeout: 1 }, alice.uid, alice.password)).toMatchObject({ ok: false, error: 'unreachable' });
      expect(await ldapAuthenticate({ ...base(), port, timeout: 1, security: 'starttls', ca: slapd.caLines }, alice.uid, alice.password)).toMatchObject({ ok: false, error: 'unreachable' });
    } finally {
      silent.close();
    }
  });
});

describe('the daemon: settings page, portal sign-in on an ldap zone, messages and guessing limit', () => {
  let h: Harness;
  let admin: Client;
  beforeAll(async () => {
    if (skip) return;
    h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { hotspot: { dataplane: new SimDataplane() } } });
    admin = await adminClient(h);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const save = async (body: Record<string, unknown>) => json(await post(h.app, admin, `/api/${hotspotLdap.path}`, body));
  const login = (ip: string, username: string, password: string) => portalLogin(h.app.hotspot.portal, ip, { method: 'ldap', username, password });

  test('auth/ldap saves the settings and never reads the bind password back', async () => {
    expect(await save({ enabled: true, bindtype: 'search' })).toMatchObject({ success: false, errors: { server: 'validation.required', basedn: 'validation.required', account: 'validation.required' } });
    const settings = { enabled: true, server: '127.0.0.1', port: slapd.ldapPort, security: 'starttls', ca: slapd.caLines, bindtype: 'search', basedn: `ou=people,${SUFFIX}`, account: SERVICE.dn, passwd: SERVICE.password, attribute: 'uid', timeout: 3 };
    expect(await save(settings)).toMatchObject({ success: true });
    const read = json(await get(h.app, admin, `/api/${hotspotLdap.path}`));
    expect(read.data).toMatchObject({ server: '127.0.0.1', bindtype: 'search', account: SERVICE.dn });
    expect(JSON.stringify(read)).not.toContain(SERVICE.password);
    // Saved again without the password: the stored one is kept.
    expect(await save({ ...settings, passwd: '' })).toMatchObject({ success: true });
    expect(json(await post(h.app, admin, '/api/auth/ldaptest', { username: alice.uid, password: alice.password }))).toEqual({ success: true, data: { dn: `uid=alice,ou=people,${SUFFIX}` } });
    expect(json(await post(h.app, admin, '/api/auth/ldaptest', { username: alice.uid, password: 'nope' }))).toMatchObject({ success: false, msg: 'portal.error.password' });
  });

  test('a client of an ldap zone signs in; wrong password, unknown user and unreachable server each give their message', async () => {
    const zone = { action: 'add', name: 'staff', ifname: 'lan', authmodel: 'ldap', authtime: 1, authtime_unit: 'days' };
    expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
    const state = json(await h.app.hotspot.portal.inject({ method: 'GET', url: '/portal-api/state', remoteAddress: '192.168.11.20', headers: { host: '192.168.11.1:2050' } }));
    expect(state.data.zone.methods).toEqual(['ldap']);
    // Other methods are not offered on this zone.
    expect(await portalLogin(h.app.hotspot.portal, '192.168.11.20', { method: 'onekey' })).toMatchObject({ success: false, msg: 'portal.error.system' });

    expect(await login('192.168.11.21', alice.uid, 'wrong')).toEqual({ success: false, msg: 'portal.error.password' });
    expect(await login('192.168.11.22', 'nobody', 'whatever')).toEqual({ success: false, msg: 'portal.error.userOrPassword' });
    expect(await login('192.168.11.20', alice.uid, alice.password)).toMatchObject({ success: true });
    const online = json(await get(h.app, admin, '/api/hotspot/online')).data.items as Array<{ ip: string; kind: string; username: string }>;
    expect(online).toContainEqual(expect.objectContaining({ ip: '192.168.11.20', kind: 'ldap', username: 'alice' }));

    const read = json(await get(h.app, admin, `/api/${hotspotLdap.path}`)).data;
    expect(await save({ ...read, port: slapd.ldapsPort === 1 ? 2 : 1 })).toMatchObject({ success: true });
    expect(await login('192.168.11.23', alice.uid, alice.password)).toEqual({ success: false, msg: 'portal.error.connectFailed' });
    expect(await save({ ...read, port: slapd.ldapPort })).toMatchObject({ success: true });
  });

  test('a parallel burst of wrong passwords is checked at most five times; the sixth try waits', async () => {
    const ip = '192.168.11.30';
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => login(ip, alice.uid, `Wrong-${i}`)));
    const messages = results.map((r) => r.msg);
    expect(messages.filter((m) => m === 'portal.error.password')).toHaveLength(5);
    expect(messages.filter((m) => m === 'portal.error.tooMany')).toHaveLength(15);
    // The right password does not get through either while the client is locked out.
    expect(await login(ip, alice.uid, alice.password)).toEqual({ success: false, msg: 'portal.error.tooMany' });
  });
});
