import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { stringBase } from '../common/field-base.js';
import { plainTextField, isHostname } from '../common/text-fields.js';
import { isIpv4 } from '../common/ip-address.js';
import { portField } from '../common/port-fields.js';
import { integerInRange } from '../common/field-base.js';
import { LDAP_PORTS } from '../constants/hotspot-defaults.js';
import { linesField } from './hotspot-fields.js';

/**
 * The LDAP directory hotspot clients of an `ldap` zone sign in against (spec §3 LDAP): the
 * server and its port (389, or 636 for LDAPS), the transport, the base DN, and how a user is
 * bound: `simple` binds the DN made from the template `dn` (its `%s` is the escaped user
 * name); `search` binds the service `account` with `passwd`, finds the user's entry under
 * `basedn` by `attribute` and binds as that entry. `ca` is the PEM certificate the server's
 * is checked against (empty: the system's trusted ones).
 */
export const LDAP_BIND_TYPES = ['simple', 'search'] as const;
export const LDAP_SECURITY = ['none', 'starttls', 'ldaps'] as const;
/** Where the user name goes in a DN template. */
export const LDAP_USER_PLACEHOLDER = '%s';
export const LDAP_TIMEOUT_DEFAULT = 5;

const PEM_CERTIFICATE = /^-----BEGIN CERTIFICATE-----\n(?:[A-Za-z0-9+/=]{1,76}\n)+-----END CERTIFICATE-----$/;

/** One or more PEM certificate blocks, as lines (no blank line, nothing around them). */
export function isPemCertificates(lines: readonly string[]): boolean {
  const text = lines.map((l) => l.trim()).filter((l) => l !== '').join('\n');
  if (text === '') return true;
  const blocks = text.split(/(?<=-----END CERTIFICATE-----)\n/);
  return blocks.every((block) => PEM_CERTIFICATE.test(block));
}

/**
 * A distinguished name as typed (RFC 4514): `attr=value` pairs separated by commas. The check
 * is a shape check; the directory is the judge of the rest.
 */
export function isDistinguishedName(text: string, options: { template?: boolean } = {}): boolean {
  if (text === '' || text.length > 512) return false;
  if (options.template && text.split(LDAP_USER_PLACEHOLDER).length !== 2) return false;
  const probe = options.template ? text.replace(LDAP_USER_PLACEHOLDER, 'x') : text;
  // Commas escaped with a backslash belong to a value.
  const rdns = probe.split(/(?<!\\),/);
  return rdns.every((rdn) => /^\s*[A-Za-z][A-Za-z0-9-]*\s*=\s*\S/.test(rdn) || /^\s*\d+(\.\d+)+\s*=\s*\S/.test(rdn));
}

const dnField = () => plainTextField(512).default('');

export const hotspotLdap = defineEntity({
  name: 'hotspotLdap',
  path: 'auth/ldap',
  module: 'ldap',
  route: '/hotspot/ldap',
  kind: 'singleton',
  schema: z.object({
    enabled: z.boolean().default(false),
    server: stringBase()
      .refine((v) => v === '' || isIpv4(v) || isHostname(v), { error: 'validation.hostname' })
      .default(''),
    port: portField().default(LDAP_PORTS.ldap),
    security: z.enum(LDAP_SECURITY, { error: 'validation.option' }).default('none'),
    ca: linesField(200, 80)
      .refine(isPemCertificates, { error: 'validation.ldap.ca' })
      .default([]),
    basedn: dnField(),
    bindtype: z.enum(LDAP_BIND_TYPES, { error: 'validation.option' }).default('simple'),
    dn: dnField(),
    account: dnField(),
    passwd: plainTextField(128).default(''),
    attribute: stringBase()
      .refine((v) => /^[A-Za-z][A-Za-z0-9-]{0,63}$/.test(v), { error: 'validation.ldap.attribute' })
      .default('uid'),
    timeout: integerInRange(1, 30, 'validation.ldap.timeout').default(LDAP_TIMEOUT_DEFAULT),
  }),
  writeOnly: ['passwd'],
  refine(value, ctx) {
    if (value.basedn !== '' && !isDistinguishedName(value.basedn)) ctx.addIssue('basedn', 'validation.ldap.dn');
    if (value.account !== '' && !isDistinguishedName(value.account)) ctx.addIssue('account', 'validation.ldap.dn');
    if (value.dn !== '' && !isDistinguishedName(value.dn, { template: true })) ctx.addIssue('dn', 'validation.ldap.dnTemplate');
    if (!value.enabled) return;
    if (value.server === '') ctx.addIssue('server', 'validation.required');
    if (value.bindtype === 'simple' && value.dn === '') ctx.addIssue('dn', 'validation.required');
    if (value.bindtype === 'search') {
      if (value.basedn === '') ctx.addIssue('basedn', 'validation.required');
      if (value.account === '') ctx.addIssue('account', 'validation.required');
    }
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'server' },
          { name: 'port' },
          { name: 'security', widget: 'select', options: LDAP_SECURITY },
          { name: 'ca', widget: 'lines', visibleWhen: { field: 'security', in: ['starttls', 'ldaps'] } },
          { name: 'timeout' },
          { name: 'bindtype', widget: 'select', options: LDAP_BIND_TYPES },
          { name: 'dn', visibleWhen: { field: 'bindtype', equals: 'simple' } },
          { name: 'basedn', visibleWhen: { field: 'bindtype', equals: 'search' } },
          { name: 'account', visibleWhen: { field: 'bindtype', equals: 'search' } },
          { name: 'passwd', widget: 'password', keepWhenEmpty: true, visibleWhen: { field: 'bindtype', equals: 'search' } },
          { name: 'attribute', visibleWhen: { field: 'bindtype', equals: 'search' } },
        ],
      },
    ],
  },
});
export type HotspotLdap = z.infer<typeof hotspotLdap.schema>;
