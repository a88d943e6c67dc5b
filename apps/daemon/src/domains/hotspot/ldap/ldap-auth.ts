import type { ConnectionOptions } from 'node:tls';
import type { Client } from 'ldapts';
import type { HotspotLdap } from '@portico/schema';
import { libraryExports } from '../../../engine/library-import.js';
import { dnFromTemplate, isLdapUserName, userFilter } from './ldap-escape.js';

type Ldapts = typeof import('ldapts');
let loading: Promise<Ldapts> | undefined;

/**
 * ldapts, imported at the first LDAP sign-in: only zones of the LDAP auth model use it, so the
 * daemon's bundle keeps it in a chunk of its own (dist/lazy/) that a start does not parse.
 */
function loadLdapts(): Promise<Ldapts> {
  loading ??= import('ldapts').then(libraryExports);
  return loading;
}

/**
 * Checks a user name and password against the configured directory, one connection per try:
 * `simple` binds the DN the template makes of the name; `search` binds the service account,
 * finds the one entry whose attribute equals the name under the base DN, and binds as it.
 * StartTLS or LDAPS verify the server against the administrator's CA (else the system's).
 */

export type LdapOutcome =
  | { ok: true; dn: string }
  /**
   * `unknownUser`: no entry has that name (search only); `wrongPassword`: the entry exists and
   * the password is wrong (search only); `refused`: the directory refused the bind, which with
   * a DN template also covers an unknown user, as a directory does not tell the two apart
   * (RFC 4513 §6.3.1); `unreachable`: no connection, or TLS failed; `misconfigured`: the
   * service account's bind or the search failed.
   */
  | { ok: false; error: 'invalidUser' | 'unknownUser' | 'wrongPassword' | 'refused' | 'unreachable' | 'misconfigured'; detail?: string };

export type LdapSettings = Pick<HotspotLdap, 'server' | 'port' | 'security' | 'ca' | 'basedn' | 'bindtype' | 'dn' | 'account' | 'passwd' | 'attribute' | 'timeout'>;

function urlOf(settings: LdapSettings): string {
  const scheme = settings.security === 'ldaps' ? 'ldaps' : 'ldap';
  // An IPv6 literal is not accepted by the settings; a host name or IPv4 address goes as it is.
  return `${scheme}://${settings.server}:${settings.port}`;
}

function tlsOptionsOf(settings: LdapSettings): ConnectionOptions {
  const ca = settings.ca.map((l) => l.trim()).filter((l) => l !== '').join('\n');
  const literal = /^\d+\.\d+\.\d+\.\d+$/.test(settings.server);
  return {
    ...(ca ? { ca: [ca] } : {}),
    // The certificate must name the server. StartTLS upgrades an open socket, where Node checks
    // the name against `host` (else 'localhost'), so it is always given; SNI only for names.
    host: settings.server,
    ...(literal ? {} : { servername: settings.server }),
    rejectUnauthorized: true,
    minVersion: 'TLSv1.2',
  };
}

/** A connected client (StartTLS done when asked); errors here mean the server is unreachable. */
async function connect(ldap: Ldapts, settings: LdapSettings): Promise<Client> {
  const timeout = settings.timeout * 1000;
  // ldapts speaks TLS from the first byte whenever it is given TLS options: only for LDAPS.
  const client = new ldap.Client({ url: urlOf(settings), timeout, connectTimeout: timeout, strictDN: false, ...(settings.security === 'ldaps' ? { tlsOptions: tlsOptionsOf(settings) } : {}) });
  if (settings.security === 'starttls') await client.startTLS(tlsOptionsOf(settings));
  return client;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 200) : 'unknown';
}

/** Binds `dn` with `password`: true when accepted, false when refused; other errors are thrown. */
async function tryBind(ldap: Ldapts, client: Client, dn: string, password: string): Promise<boolean> {
  try {
    await client.bind(dn, password);
    return true;
  } catch (error) {
    if (error instanceof ldap.InvalidCredentialsError) return false;
    throw error;
  }
}

export async function ldapAuthenticate(settings: LdapSettings, username: string, password: string): Promise<LdapOutcome> {
  // An empty password would be an unauthenticated bind, which directories accept (RFC 4513 §5.1.2).
  if (!isLdapUserName(username) || password === '' || password.length > 256) return { ok: false, error: 'invalidUser' };
  const ldap = await loadLdapts();
  let client: Client;
  try {
    client = await connect(ldap, settings);
  } catch (error) {
    return { ok: false, error: 'unreachable', detail: describe(error) };
  }
  try {
    if (settings.bindtype === 'simple') {
      const dn = dnFromTemplate(settings.dn, username);
      return (await tryBind(ldap, client, dn, password)) ? { ok: true, dn } : { ok: false, error: 'refused' };
    }
    if (settings.account === '' || !(await tryBind(ldap, client, settings.account, settings.passwd))) {
      return { ok: false, error: 'misconfigured', detail: 'the service account was refused' };
    }
    let entries: { dn: string }[];
    try {
      ({ searchEntries: entries } = await client.search(settings.basedn, { scope: 'sub', filter: userFilter(ldap.Filter, settings.attribute, username), attributes: ['1.1'], sizeLimit: 2 }));
    } catch (error) {
      return { ok: false, error: 'misconfigured', detail: describe(error) };
    }
    // Two entries with one name: which one is meant cannot be told, so neither signs in.
    if (entries.length !== 1) return entries.length === 0 ? { ok: false, error: 'unknownUser' } : { ok: false, error: 'misconfigured', detail: 'the name matches several entries' };
    const dn = entries[0]!.dn;
    return (await tryBind(ldap, client, dn, password)) ? { ok: true, dn } : { ok: false, error: 'wrongPassword' };
  } catch (error) {
    // A result code is the directory answering; anything else is the connection failing.
    return error instanceof ldap.ResultCodeError ? { ok: false, error: 'misconfigured', detail: describe(error) } : { ok: false, error: 'unreachable', detail: describe(error) };
  } finally {
    await client.unbind().catch(() => undefined);
  }
}
