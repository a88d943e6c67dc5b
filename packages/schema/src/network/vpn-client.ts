import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { portField } from '../common/port-fields.js';
import { sharedKeyField } from '../common/text-fields.js';
import { OPENVPN_DEFAULTS } from '../constants/vpn-defaults.js';
import { accountField, hostOrIpField, interfaceNameField, ipsecIdField, parsePeerSubnets, peerSubnetsField } from './network-fields.js';

/**
 * VPN clients (spec §3, §5): PPTP, L2TP, OpenVPN and IPsec tunnels this gateway dials out.
 * The name is an interface name (the tunnel device is `vpn-<name>`). IPsec: both ends use the
 * same IKE version and mode; IKEv1 allows one peer subnet; local and remote IDs differ.
 */
export const VPN_CLIENT_TYPES = ['pptp', 'l2tp', 'openvpn', 'ipsec'] as const;
export const IKE_VERSIONS = ['ikev1', 'ikev2'] as const;
export const IPSEC_MODES = ['main', 'aggressive'] as const;
const DIALLED = ['pptp', 'l2tp', 'openvpn'] as const;

export const vpnClient = defineEntity({
  name: 'vpnClient',
  path: 'vpnclient',
  module: 'vpnclient',
  route: '/netconf/vpnclient',
  // One add and edit page per tunnel type (spec §2: pptpadd, l2tpedit, …).
  formRoutes: { byField: 'type' },
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    type: z.enum(VPN_CLIENT_TYPES, { error: 'validation.option' }),
    name: interfaceNameField(),
    server: hostOrIpField(),
    port: portField().default(OPENVPN_DEFAULTS.port),
    username: accountField({ allowEmpty: true }).default(''),
    password: sharedKeyField().optional(),
    enabled: z.boolean().default(true),
    /** Send all traffic through the tunnel instead of only the peer's networks. */
    defaultroute: z.boolean().default(false),
    ike: z.enum(IKE_VERSIONS, { error: 'validation.option' }).default('ikev2'),
    ipsec_mode: z.enum(IPSEC_MODES, { error: 'validation.option' }).default('main'),
    /** IPv4 networks behind the peer, separated by spaces. */
    peer_subnets: peerSubnetsField({ allowEmpty: true }).default(''),
    local_id: ipsecIdField({ allowEmpty: true }).default(''),
    remote_id: ipsecIdField({ allowEmpty: true }).default(''),
    psk: sharedKeyField().optional(),
  }),
  writeOnly: ['password', 'psk'],
  refine(value, ctx, mode) {
    if (value.type === 'pptp' || value.type === 'l2tp') {
      if (value.username === '') ctx.addIssue('username', 'validation.required');
      if (mode === 'add' && !value.password) ctx.addIssue('password', 'validation.required');
    }
    if (value.type === 'ipsec') {
      if (mode === 'add' && !value.psk) ctx.addIssue('psk', 'validation.required');
      const subnets = parsePeerSubnets(value.peer_subnets);
      if (!subnets) ctx.addIssue('peer_subnets', 'validation.required');
      else if (value.ike === 'ikev1' && subnets.length > 1) ctx.addIssue('peer_subnets', 'validation.ipsec.ikev1Subnets');
      if (value.local_id !== '' && value.local_id === value.remote_id) ctx.addIssue('remote_id', 'validation.ipsec.sameId');
    }
  },
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'type', format: 'option', sortable: true },
      { field: 'server' },
      { field: 'defaultroute', format: 'bool' },
      { field: 'enabled', format: 'enabled' },
    ],
    defaultSort: 'name',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'type', widget: 'select', options: VPN_CLIENT_TYPES, addOnly: true },
          { name: 'name', addOnly: true },
          { name: 'server' },
          { name: 'port', visibleWhen: { field: 'type', equals: 'openvpn' } },
          { name: 'username', visibleWhen: { field: 'type', in: DIALLED } },
          { name: 'password', widget: 'password', keepWhenEmpty: true, visibleWhen: { field: 'type', in: DIALLED } },
          { name: 'enabled', widget: 'switch' },
          { name: 'defaultroute', widget: 'switch' },
        ],
      },
      {
        key: 'ipsec',
        fields: [
          { name: 'ike', widget: 'select', options: IKE_VERSIONS, visibleWhen: { field: 'type', equals: 'ipsec' } },
          { name: 'ipsec_mode', widget: 'select', options: IPSEC_MODES, visibleWhen: { field: 'type', equals: 'ipsec' } },
          { name: 'peer_subnets', visibleWhen: { field: 'type', equals: 'ipsec' } },
          { name: 'local_id', visibleWhen: { field: 'type', equals: 'ipsec' } },
          { name: 'remote_id', visibleWhen: { field: 'type', equals: 'ipsec' } },
          { name: 'psk', widget: 'password', keepWhenEmpty: true, visibleWhen: { field: 'type', equals: 'ipsec' } },
        ],
      },
    ],
  },
  // The IPsec client's log (spec §2 ipseclog; shown only where the menu routes it: vlan).
  links: [{ key: 'ipseclog', route: '/netconf/vpnclient/ipseclog' }],
  maxRows: 16,
});
export type VpnClient = z.infer<typeof vpnClient.schema>;

/**
 * GET `vpnclient/ipseclog` (spec §2 /netconf/vpnclient/ipseclog): the newest lines of the
 * IPsec client's IKE log. `file`: strongSwan's log file on this device (`present` false until
 * charon has written it); `simulated`: the sim driver's stand-in; `unavailable`: this driver
 * keeps no such file (OpenWrt logs strongSwan to the system log).
 */
export const IPSEC_LOG_SOURCES = ['file', 'simulated', 'unavailable'] as const;
export const IPSEC_LOG_LINES_MAX = 500;
export const ipsecLogSchema = z.object({
  source: z.enum(IPSEC_LOG_SOURCES),
  present: z.boolean(),
  /** Oldest first. */
  lines: z.array(z.string()),
  /** Older lines were left out. */
  truncated: z.boolean(),
});
export type IpsecLog = z.infer<typeof ipsecLogSchema>;
