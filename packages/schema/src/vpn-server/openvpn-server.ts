import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { portField } from '../common/port-fields.js';
import { ipv4Field, netmaskField } from '../common/ip-fields.js';
import { stringBase } from '../common/field-base.js';
import { isCidr4, isIpv4, netmaskToPrefix } from '../common/ip-address.js';
import { isSafeText, TEXT_CONTROL_MESSAGE } from '../common/text-guard.js';
import { OPENVPN_DEFAULTS } from '../constants/vpn-defaults.js';
import { hostOrIpField, peerSubnetsField } from '../network/network-fields.js';

/**
 * The OpenVPN server (spec §3 VPN service, §9 defaults): settings as one singleton; its client
 * certificates live in the daemon's own PKI and are managed through `auth/openvpn/clients`.
 *
 * `cipher` is the cipher a client that cannot negotiate is held to (`data-ciphers-fallback`):
 * clients of OpenVPN 2.4 and newer always negotiate one of OPENVPN_DATA_CIPHERS. BF-CBC, the
 * spec's default, runs only where OpenSSL's legacy provider is installed; the server loads it
 * for that cipher and does not start without it.
 */
export const OPENVPN_PROTOS = ['udp', 'tcp'] as const;
export const OPENVPN_DEVS = ['tun', 'tap'] as const;
export const OPENVPN_FALLBACK_CIPHERS = ['BF-CBC', 'AES-128-CBC', 'AES-256-CBC', 'AES-128-GCM', 'AES-256-GCM'] as const;
export const OPENVPN_COMPRESS = ['lzo', 'lz4', 'none'] as const;
export const VPN_WORK_MODES = ['natmode', 'route'] as const;
/** The data ciphers every server negotiates first, strongest first. */
export const OPENVPN_DATA_CIPHERS = ['AES-256-GCM', 'AES-128-GCM', 'CHACHA20-POLY1305'] as const;

/** Certificate client name (spec §5): not empty, no hyphen; letters, digits, `_` and `.`, at most 32. */
export const OPENVPN_CLIENT_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.]{0,31}$/;

export function isOpenvpnClientName(text: string): boolean {
  return OPENVPN_CLIENT_NAME_PATTERN.test(text);
}

export function openvpnClientNameField() {
  return stringBase()
    .min(1, { error: 'validation.required' })
    .refine(isSafeText, { error: TEXT_CONTROL_MESSAGE })
    .refine((v) => !v.includes('-'), { error: 'validation.openvpn.hyphen' })
    .refine(isOpenvpnClientName, { error: 'validation.openvpn.clientName' });
}

export const openvpnServer = defineEntity({
  name: 'openvpnServer',
  path: 'auth/openvpn',
  module: 'openvpnservice',
  route: '/vpnserver/openvpnservice',
  kind: 'singleton',
  schema: z.object({
    enabled: z.boolean().default(false),
    /** Address or name clients reach this gateway by; written into exported profiles. */
    host: hostOrIpField({ allowEmpty: true }).default(''),
    port: portField().default(OPENVPN_DEFAULTS.port),
    proto: z.enum(OPENVPN_PROTOS, { error: 'validation.option' }).default(OPENVPN_DEFAULTS.proto),
    dev: z.enum(OPENVPN_DEVS, { error: 'validation.option' }).default(OPENVPN_DEFAULTS.dev),
    /** The tunnel network clients get addresses from. */
    server: ipv4Field().default('10.8.0.0'),
    netmask: netmaskField().default('255.255.255.0'),
    cipher: z.enum(OPENVPN_FALLBACK_CIPHERS, { error: 'validation.option' }).default(OPENVPN_DEFAULTS.cipher),
    compress: z.enum(OPENVPN_COMPRESS, { error: 'validation.option' }).default(OPENVPN_DEFAULTS.compress),
    workmode: z.enum(VPN_WORK_MODES, { error: 'validation.option' }).default('natmode'),
    /** DNS server pushed to clients; empty: none. */
    msdns: ipv4Field({ allowEmpty: true }).default(''),
    /** Networks pushed to clients as routes through the tunnel (IPv4 CIDRs separated by spaces). */
    push_routes: peerSubnetsField({ allowEmpty: true }).default(''),
  }),
  refine(value, ctx) {
    const prefix = netmaskToPrefix(value.netmask);
    if (prefix !== null && (prefix < 16 || prefix > 29)) ctx.addIssue('netmask', 'validation.openvpn.poolSize');
    else if (prefix !== null && isIpv4(value.server) && !isCidr4(`${value.server}/${prefix}`, { network: true })) {
      ctx.addIssue('server', 'validation.cidrHostBits');
    }
    if (value.enabled && value.host === '') ctx.addIssue('host', 'validation.required');
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'host' },
          { name: 'port' },
          { name: 'proto', widget: 'select', options: OPENVPN_PROTOS },
          { name: 'dev', widget: 'select', options: OPENVPN_DEVS },
          { name: 'server' },
          { name: 'netmask' },
          { name: 'workmode', widget: 'select', options: VPN_WORK_MODES },
          { name: 'msdns' },
          { name: 'push_routes' },
        ],
      },
      {
        key: 'advanced',
        fields: [
          { name: 'cipher', widget: 'select', options: OPENVPN_FALLBACK_CIPHERS },
          { name: 'compress', widget: 'select', options: OPENVPN_COMPRESS },
        ],
      },
    ],
  },
});
export type OpenvpnServer = z.infer<typeof openvpnServer.schema>;

/** A client certificate as the API lists it (the key never leaves but inside a profile). */
export const OPENVPN_CERT_STATUS = ['valid', 'revoked'] as const;
export const openvpnClientSchema = z.object({
  name: z.string(),
  remark: z.string(),
  status: z.enum(OPENVPN_CERT_STATUS),
  serial: z.string(),
  issued: z.number(),
  revoked: z.number().nullable(),
});
export type OpenvpnClientInfo = z.infer<typeof openvpnClientSchema>;

export const OPENVPN_REMARK_MAX = 64;
export const openvpnClientAddBody = z.object({
  name: openvpnClientNameField(),
  remark: stringBase()
    .refine(isSafeText, { error: TEXT_CONTROL_MESSAGE })
    .max(OPENVPN_REMARK_MAX, { error: 'validation.text.length' })
    .default(''),
});
export const openvpnClientNameBody = z.object({ name: openvpnClientNameField() });

/** A session of the running server (its management interface's status). */
export const openvpnSessionSchema = z.object({
  name: z.string(),
  from: z.string(),
  address: z.string(),
  since: z.number(),
  rx: z.number(),
  tx: z.number(),
});
export type OpenvpnSession = z.infer<typeof openvpnSessionSchema>;

