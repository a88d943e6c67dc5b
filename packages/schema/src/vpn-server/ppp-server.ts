import { z } from 'zod';
import { defineEntity, type FormFieldDef } from '../entity/define-entity.js';
import { integerInRange } from '../common/field-base.js';
import { ipv4Field, ipRangeField } from '../common/ip-fields.js';
import { ipv4ToInt, isIpv4, parseIpv4Range } from '../common/ip-address.js';
import { sharedKeyField } from '../common/text-fields.js';
import { interfaceListField } from '../firewall/firewall-fields.js';
import { INTERFACE_REF, LAN_SIDE_REF } from '../network/network-fields.js';
import { VPN_WORK_MODES } from './openvpn-server.js';

/**
 * The PPP servers of spec §3 (VPN service): PPTP, L2TP (optionally over IPsec) and the PPPoE
 * server, each one singleton of settings. They share pppd's settings: the server's own address
 * on every link, the range clients get addresses from, the DNS server handed out, where
 * accounts are checked (local users of the server's type, or the hotspot's RADIUS server), the
 * authentication protocols accepted, MTU/MRU (spec §5: 46-1500, default 1450), LCP echo, MPPE
 * and compression.
 */
export const PPP_SERVER_KINDS = ['pptp', 'l2tp', 'pppoe'] as const;
export type PppServerKind = (typeof PPP_SERVER_KINDS)[number];

/**
 * Where accounts are checked: local users of the server's type, or the device's RADIUS server
 * (the hotspot's, /hotspot/radius) through pppd's radius plugin. Not both: the plugin answers
 * every PAP/CHAP request itself and never falls back to pppd's secrets files.
 */
export const PPP_AUTH_WAYS = ['local', 'radius'] as const;
/** radiusclient keeps a shared secret in at most 48 bytes (MAX_SECRET_LENGTH), one token. */
export const PPP_RADIUS_SECRET = /^[\x21-\x7e]{1,48}$/;
/** Authentication protocols pppd may accept from clients. */
export const PPP_AUTH_PROTOS = ['pap', 'chap', 'mschap', 'mschap-v2'] as const;
/** MPPE key strength when MPPE is on: 128-bit only, 40-bit only, or either. */
export const PPP_MPPE_OPTIONS = ['128', '40', 'any'] as const;
/** Compression algorithms offered when compression is on. */
export const PPP_COMPRESS_OPTIONS = ['deflate', 'bsdcomp', 'all'] as const;

export const PPP_MTU = { min: 46, max: 1500, default: 1450 } as const;
export const PPP_LCP_INTERVAL = { min: 0, max: 300, default: 10 } as const;
export const PPP_LCP_FAILURE = { min: 1, max: 100, default: 5 } as const;
/** A remote range lies within one /24 (pptpd writes ranges as `a.b.c.x-y`) and holds at most 253 clients. */
export const PPP_REMOTE_MAX = 253;
/**
 * "Remind expired users" sets the last quarter of the PPPoE server's range aside for expired
 * accounts (at most 32 addresses): the range must then hold at least 4.
 */
export const PPP_EXPIRED_POOL = { share: 4, max: 32, minRange: 4 } as const;

/**
 * The PPPoE range split for "remind expired users": `normal` is what pppoe-server hands out,
 * `expired` the tail set aside for expired accounts (inclusive integer ranges). Null when the
 * range cannot be parsed or is too small to split.
 */
export function pppExpiredSplit(remoteip: string): { normal: { first: number; last: number }; expired: { first: number; last: number } } | null {
  const range = parseIpv4Range(remoteip);
  if (!range) return null;
  const count = range.last - range.first + 1;
  if (count < PPP_EXPIRED_POOL.minRange) return null;
  const size = Math.min(PPP_EXPIRED_POOL.max, Math.floor(count / PPP_EXPIRED_POOL.share));
  return { normal: { first: range.first, last: range.last - size }, expired: { first: range.last - size + 1, last: range.last } };
}

/** The local address and remote range each server starts with (distinct, so all three can run). */
export const PPP_SERVER_DEFAULTS: Readonly<Record<PppServerKind, { localip: string; remoteip: string }>> = {
  pptp: { localip: '10.0.20.1', remoteip: '10.0.20.10-10.0.20.200' },
  l2tp: { localip: '10.0.30.1', remoteip: '10.0.30.10-10.0.30.200' },
  pppoe: { localip: '10.0.40.1', remoteip: '10.0.40.10-10.0.40.200' },
};

/** The entity of each server kind, by name (the local user type of its accounts is the kind). */
export const PPP_SERVER_ENTITY: Readonly<Record<PppServerKind, string>> = { pptp: 'pptpServer', l2tp: 'l2tpServer', pppoe: 'pppoeServer' };

function commonShape(kind: PppServerKind) {
  return {
    enabled: z.boolean().default(false),
    /** The server's own address on every client link. */
    localip: ipv4Field().default(PPP_SERVER_DEFAULTS[kind].localip),
    /** DNS server handed to clients; empty: the server's own address (dnsmasq answers there). */
    msdns: ipv4Field({ allowEmpty: true }).default(''),
    /** Client addresses, `first-last` within one /24. */
    remoteip: ipRangeField().default(PPP_SERVER_DEFAULTS[kind].remoteip),
    /** Interfaces clients connect on (PPPoE: where discovery is answered; PPTP/L2TP: where the port is open). */
    interfaces: interfaceListField().default([]),
    workmode: z.enum(VPN_WORK_MODES, { error: 'validation.option' }).default('natmode'),
    authway: z.enum(PPP_AUTH_WAYS, { error: 'validation.option' }).default('local'),
    authproto: z
      .array(z.enum(PPP_AUTH_PROTOS, { error: 'validation.option' }), { error: 'validation.type' })
      .max(PPP_AUTH_PROTOS.length, { error: 'validation.tooBig' })
      .default(['mschap-v2']),
    mtu: integerInRange(PPP_MTU.min, PPP_MTU.max, 'validation.ppp.mtu').default(PPP_MTU.default),
    mru: integerInRange(PPP_MTU.min, PPP_MTU.max, 'validation.ppp.mtu').default(PPP_MTU.default),
    lcpchecktime: integerInRange(PPP_LCP_INTERVAL.min, PPP_LCP_INTERVAL.max, 'validation.ppp.lcpInterval').default(PPP_LCP_INTERVAL.default),
    lcpchecknum: integerInRange(PPP_LCP_FAILURE.min, PPP_LCP_FAILURE.max, 'validation.ppp.lcpFailure').default(PPP_LCP_FAILURE.default),
    mppe: z.boolean().default(kind === 'pptp'),
    mppe_option: z.enum(PPP_MPPE_OPTIONS, { error: 'validation.option' }).default('128'),
    compress: z.boolean().default(false),
    compress_option: z.enum(PPP_COMPRESS_OPTIONS, { error: 'validation.option' }).default('deflate'),
  };
}

type CommonValue = { [K in keyof ReturnType<typeof commonShape>]: z.infer<ReturnType<typeof commonShape>[K]> };

/** The rules every PPP server holds its settings to (spec §5), as field errors. */
export function pppServerIssues(value: CommonValue): Array<[field: string, message: string]> {
  const issues: Array<[string, string]> = [];
  const range = parseIpv4Range(value.remoteip);
  if (range) {
    if (range.last - range.first + 1 > PPP_REMOTE_MAX || range.first >>> 8 !== range.last >>> 8) issues.push(['remoteip', 'validation.ppp.remoteRange']);
    else if ((range.first & 0xff) === 0 || (range.last & 0xff) === 255) issues.push(['remoteip', 'validation.ppp.remoteRange']);
    if (isIpv4(value.localip)) {
      const local = ipv4ToInt(value.localip);
      if (local >= range.first && local <= range.last) issues.push(['localip', 'validation.ppp.localInRange']);
    }
  }
  if (value.authproto.length === 0) issues.push(['authproto', 'validation.required']);
  if (new Set(value.authproto).size !== value.authproto.length) issues.push(['authproto', 'validation.ppp.duplicate']);
  // MPPE keys come out of MS-CHAP: without it pppd cannot encrypt and drops the link.
  if (value.mppe && !value.authproto.some((proto) => proto === 'mschap' || proto === 'mschap-v2')) issues.push(['mppe', 'validation.ppp.mppeNeedsMschap']);
  return issues;
}

const BASIC_FIELDS: FormFieldDef[] = [
  { name: 'enabled', widget: 'switch' },
  { name: 'localip' },
  { name: 'msdns' },
  { name: 'remoteip' },
  { name: 'workmode', widget: 'select', options: VPN_WORK_MODES },
];

const ADVANCED_FIELDS: FormFieldDef[] = [
  { name: 'authway', widget: 'select', options: PPP_AUTH_WAYS },
  { name: 'authproto', widget: 'multiselect', options: PPP_AUTH_PROTOS },
  { name: 'mtu' },
  { name: 'mru' },
  { name: 'lcpchecktime' },
  { name: 'lcpchecknum' },
  { name: 'mppe', widget: 'switch' },
  { name: 'mppe_option', widget: 'select', options: PPP_MPPE_OPTIONS, visibleWhen: { field: 'mppe', equals: true } },
  { name: 'compress', widget: 'switch' },
  { name: 'compress_option', widget: 'select', options: PPP_COMPRESS_OPTIONS, visibleWhen: { field: 'compress', equals: true } },
];

export const pptpServer = defineEntity({
  name: 'pptpServer',
  path: 'auth/pptp',
  module: 'pptpservice',
  route: '/vpnserver/pptpservice',
  kind: 'singleton',
  schema: z.object(commonShape('pptp')),
  refine(value, ctx) {
    for (const [field, message] of pppServerIssues(value)) ctx.addIssue(field, message);
  },
  form: {
    tabs: [
      { key: 'basic', fields: [...BASIC_FIELDS, { name: 'interfaces', ref: INTERFACE_REF }] },
      { key: 'advanced', fields: ADVANCED_FIELDS },
    ],
  },
});
export type PptpServer = z.infer<typeof pptpServer.schema>;

export const l2tpServer = defineEntity({
  name: 'l2tpServer',
  path: 'auth/l2tp',
  module: 'l2tpservice',
  route: '/vpnserver/l2tpservice',
  kind: 'singleton',
  schema: z.object({
    ...commonShape('l2tp'),
    /** L2TP over IPsec: clients must bring up IPsec (IKEv1, transport mode) with this key first. */
    ipsec: z.boolean().default(false),
    psk: sharedKeyField().optional(),
  }),
  writeOnly: ['psk'],
  refine(value, ctx) {
    for (const [field, message] of pppServerIssues(value)) ctx.addIssue(field, message);
    // The key is write-only and kept when sent empty: only the daemon, which merges the stored
    // one first, can tell a missing key from a kept one (ppp-server-rules).
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          ...BASIC_FIELDS,
          { name: 'interfaces', ref: INTERFACE_REF },
          { name: 'ipsec', widget: 'switch' },
          { name: 'psk', widget: 'password', keepWhenEmpty: true, visibleWhen: { field: 'ipsec', equals: true } },
        ],
      },
      { key: 'advanced', fields: ADVANCED_FIELDS },
    ],
  },
});
export type L2tpServer = z.infer<typeof l2tpServer.schema>;

export const pppoeServer = defineEntity({
  name: 'pppoeServer',
  path: 'auth/pppoe',
  module: 'ppoeservice',
  route: '/hotspot/ppoeservice',
  kind: 'singleton',
  schema: z.object({
    ...commonShape('pppoe'),
    /** Hosts on the server's interfaces reach nothing beyond the gateway unless they dial. */
    pppoeonly: z.boolean().default(false),
    /**
     * Expired accounts may still dial, into a pool set aside for them (pppExpiredSplit) where
     * they reach only DNS and the portal's expiry notice; off: they are refused.
     */
    remindexpired: z.boolean().default(false),
  }),
  refine(value, ctx) {
    for (const [field, message] of pppServerIssues(value)) ctx.addIssue(field, message);
    if (value.enabled && value.interfaces.length === 0) ctx.addIssue('interfaces', 'validation.required');
    if (value.remindexpired && parseIpv4Range(value.remoteip) && !pppExpiredSplit(value.remoteip)) ctx.addIssue('remoteip', 'validation.ppp.expiredPool');
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          ...BASIC_FIELDS,
          { name: 'interfaces', ref: LAN_SIDE_REF },
          { name: 'pppoeonly', widget: 'switch' },
          { name: 'remindexpired', widget: 'switch' },
        ],
      },
      { key: 'advanced', fields: ADVANCED_FIELDS },
    ],
  },
});
export type PppoeServer = z.infer<typeof pppoeServer.schema>;

/** Any of the three servers' settings (the shared part pppd is rendered from). */
export type PppServerSettings = PptpServer | L2tpServer | PppoeServer;

/** One online session of a PPP server: who, from where (client IP or MAC), address, since, bytes. */
export const pppSessionSchema = z.object({
  ifname: z.string(),
  username: z.string(),
  from: z.string(),
  address: z.string(),
  since: z.number(),
  rx: z.number(),
  tx: z.number(),
});
export type PppSession = z.infer<typeof pppSessionSchema>;

export const pppServerStatusSchema = z.object({
  running: z.boolean(),
  sessions: z.array(pppSessionSchema),
  /** Local accounts of this server's type that cannot dial until their password is set again. */
  needPassword: z.array(z.string()),
});
export type PppServerStatus = z.infer<typeof pppServerStatusSchema>;

/** auth/<kind>/status kick-off body. */
export const pppKickBody = z.object({ action: z.literal('kick'), ifname: z.string().regex(/^ppp[0-9]{1,5}$/, { error: 'validation.ifname' }) });
