import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { checkedString } from '../common/field-base.js';
import { sharedKeyField } from '../common/text-fields.js';
import { isIp } from '../common/ip-address.js';
import { hostOrIpField, ipsecIdField, parsePeerSubnets, peerSubnetsField } from '../network/network-fields.js';
import { IKE_VERSIONS, IPSEC_MODES } from '../network/vpn-client.js';

/**
 * The IPsec server (spec §3 "IPsec", §5): site-to-site peers this gateway answers, one row
 * each. Both ends must use the same IKE version and mode: the server is rendered for exactly
 * the configured version (never "any"), and aggressive mode only exists in IKEv1. IKEv1 carries
 * one peer subnet per SA; local and remote IDs differ; the pre-shared key must not be the
 * L2TP/IPsec server's (an anonymous L2TP client holding it could otherwise pose as a peer).
 */
export const IPSEC_PEER_NAME_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
export const IPSEC_PEERS_MAX = 1024;

export function isIpsecPeerName(text: string): boolean {
  return IPSEC_PEER_NAME_PATTERN.test(text);
}

/** The entity whose pre-shared key an IPsec peer's must differ from (spec §5), when it exists. */
export const L2TP_PSK_SOURCE = { entity: 'l2tpServer', field: 'psk' } as const;

export const ipsecPeer = defineEntity({
  name: 'ipsecPeer',
  path: 'auth/ipsec',
  module: 'ipsecservice',
  route: '/vpnserver/ipsecservice',
  kind: 'collection',
  maxRows: IPSEC_PEERS_MAX,
  schema: z.object({
    id: z.string(),
    name: checkedString(isIpsecPeerName, 'validation.ipsec.peerName'),
    enabled: z.boolean().default(true),
    /** The peer gateway's address or name; empty: any address (a peer behind a changing address). */
    remote_addr: hostOrIpField({ allowEmpty: true }).default(''),
    ike: z.enum(IKE_VERSIONS, { error: 'validation.option' }).default('ikev2'),
    ipsec_mode: z.enum(IPSEC_MODES, { error: 'validation.option' }).default('main'),
    /** This side's networks the tunnel carries (IPv4 CIDRs separated by spaces). */
    local_subnets: peerSubnetsField(),
    /** The peer's networks (IPv4 CIDRs separated by spaces). */
    peer_subnets: peerSubnetsField(),
    local_id: ipsecIdField({ allowEmpty: true }).default(''),
    remote_id: ipsecIdField({ allowEmpty: true }).default(''),
    psk: sharedKeyField().optional(),
  }),
  writeOnly: ['psk'],
  refine(value, ctx, mode) {
    if (mode === 'add' && !value.psk) ctx.addIssue('psk', 'validation.required');
    if (value.ike === 'ikev2' && value.ipsec_mode === 'aggressive') ctx.addIssue('ipsec_mode', 'validation.ipsec.aggressiveIkev1');
    const peers = parsePeerSubnets(value.peer_subnets);
    if (peers && value.ike === 'ikev1' && peers.length > 1) ctx.addIssue('peer_subnets', 'validation.ipsec.ikev1Subnets');
    const locals = parsePeerSubnets(value.local_subnets);
    if (locals && value.ike === 'ikev1' && locals.length > 1) ctx.addIssue('local_subnets', 'validation.ipsec.ikev1Subnets');
    if (value.local_id !== '' && value.local_id === value.remote_id) ctx.addIssue('remote_id', 'validation.ipsec.sameId');
    // Without an ID the peer must prove its address as identity: a name or "any" is no identity.
    if (value.remote_id === '' && !isIp(value.remote_addr)) ctx.addIssue('remote_id', 'validation.ipsec.anyPeerNeedsId');
  },
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'remote_addr' },
      { field: 'ike', format: 'option', sortable: true },
      { field: 'peer_subnets' },
      { field: 'enabled', format: 'enabled' },
    ],
    defaultSort: 'name',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'name', addOnly: true },
          { name: 'enabled', widget: 'switch' },
          { name: 'remote_addr' },
          { name: 'ike', widget: 'select', options: IKE_VERSIONS },
          { name: 'ipsec_mode', widget: 'select', options: IPSEC_MODES, visibleWhen: { field: 'ike', equals: 'ikev1' } },
          { name: 'local_subnets' },
          { name: 'peer_subnets' },
          { name: 'local_id' },
          { name: 'remote_id' },
          { name: 'psk', widget: 'password', keepWhenEmpty: true },
        ],
      },
    ],
  },
});
export type IpsecPeer = z.infer<typeof ipsecPeer.schema>;

/** Cross-row rules of the peers (spec §5), as field errors; `others` excludes the row itself. */
export function ipsecPeerConflicts(candidate: Partial<IpsecPeer>, others: readonly Partial<IpsecPeer>[], l2tpPsk?: string): Record<string, string> {
  const errors: Record<string, string> = {};
  if (others.some((row) => row.name === candidate.name)) errors.name = 'msg.nameExists';
  if (candidate.remote_id && others.some((row) => row.remote_id === candidate.remote_id && (row.remote_addr ?? '') === (candidate.remote_addr ?? ''))) {
    errors.remote_id = 'validation.ipsec.peerTaken';
  }
  if (!candidate.remote_id && candidate.remote_addr && others.some((row) => !row.remote_id && row.remote_addr === candidate.remote_addr)) {
    errors.remote_addr = 'validation.ipsec.peerTaken';
  }
  // IKEv1 main mode hides the identity under the key: the key is chosen by address alone.
  const mainMode = (row: Partial<IpsecPeer>) => row.ike === 'ikev1' && row.ipsec_mode !== 'aggressive';
  if (mainMode(candidate) && others.some((row) => mainMode(row) && (row.remote_addr ?? '') === (candidate.remote_addr ?? ''))) {
    errors.remote_addr = 'validation.ipsec.peerTaken';
  }
  if (l2tpPsk && candidate.psk && candidate.psk === l2tpPsk) errors.psk = 'validation.ipsec.pskL2tp';
  return errors;
}

/** An IKE SA of the running server, read from `swanctl --list-sas`. */
export const IPSEC_SA_STATES = ['established', 'connecting', 'rekeying', 'deleting', 'other'] as const;
export const ipsecSaSchema = z.object({
  /** The configured peer (connection name). */
  name: z.string(),
  /** The SA's unique id, what kick-off terminates. */
  uniqueId: z.string(),
  state: z.enum(IPSEC_SA_STATES),
  version: z.string(),
  /** The peer's identity and address. */
  peer: z.string(),
  address: z.string(),
  /** Epoch milliseconds the IKE SA was established; null while it is being set up. */
  since: z.number().nullable(),
  rx: z.number(),
  tx: z.number(),
  children: z.number(),
});
export type IpsecSa = z.infer<typeof ipsecSaSchema>;

/** The last refusal charon logged for a peer (wrong key, unknown identity). */
export const ipsecRefusalSchema = z.object({ name: z.string(), address: z.string(), at: z.number(), msg: z.string() });
export type IpsecRefusal = z.infer<typeof ipsecRefusalSchema>;

export const ipsecStatusSchema = z.object({
  running: z.boolean(),
  sas: z.array(ipsecSaSchema),
  refusals: z.array(ipsecRefusalSchema),
});
export type IpsecStatus = z.infer<typeof ipsecStatusSchema>;
