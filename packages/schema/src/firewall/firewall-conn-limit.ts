import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { integerInRange } from '../common/field-base.js';
import { limitField } from '../common/quantity-fields.js';
import { nameField, plainTextField } from '../common/text-fields.js';
import { CONNECTION_LIMITS, TCP_TIMEOUTS, UDP_TIMEOUTS } from '../constants/firewall-limits.js';
import { FIREWALL_COMMENT_MAX, ipv4SelectorField, SELECTOR_MESSAGE, selectorListField } from './firewall-fields.js';

/**
 * Connection (session) limits (spec §9). The singleton holds the limits every LAN client gets
 * (per IP 3000 connections, TCP 0 = no limit, UDP 800) and the connection-tracking timeouts;
 * the collection gives address ranges limits of their own, first matching row wins. A client
 * over a limit has its new connections refused; addresses in `exempt` are never limited. 0 means no limit (spec §5).
 *
 * Limits count connections crossing the gateway, never those to it: no confirmation needed.
 */
export const CONN_LIMIT_MAX = 1_000_000;
/** Longest conntrack timeout accepted, in seconds (five days, the kernel's established default). */
export const CONN_TIMEOUT_MAX = 432_000;

function timeoutField(fallback: number) {
  return integerInRange(1, CONN_TIMEOUT_MAX, 'validation.tooBig').default(fallback);
}

export const firewallSessionLimit = defineEntity({
  name: 'firewallSessionLimit',
  path: 'sessionlimit',
  module: 'connectionlimit',
  route: '/firewall/connectionlimit/settings',
  kind: 'singleton',
  schema: z.object({
    enabled: z.boolean().default(true),
    perip: limitField(CONN_LIMIT_MAX).default(CONNECTION_LIMITS.perIp),
    tcp: limitField(CONN_LIMIT_MAX).default(CONNECTION_LIMITS.tcp),
    udp: limitField(CONN_LIMIT_MAX).default(CONNECTION_LIMITS.udp),
    /** Addresses never limited (servers on the LAN). */
    exempt: selectorListField().default([]),
    tcp_generic: timeoutField(TCP_TIMEOUTS.generic),
    tcp_established: timeoutField(TCP_TIMEOUTS.established),
    tcp_syn_sent: timeoutField(TCP_TIMEOUTS.synSent),
    tcp_syn_recv: timeoutField(TCP_TIMEOUTS.synReceived),
    tcp_fin_wait: timeoutField(TCP_TIMEOUTS.finWait),
    tcp_time_wait: timeoutField(TCP_TIMEOUTS.timeWait),
    tcp_close: timeoutField(TCP_TIMEOUTS.close),
    tcp_close_wait: timeoutField(TCP_TIMEOUTS.closeWait),
    tcp_last_ack: timeoutField(TCP_TIMEOUTS.lastAck),
    udp_unreplied: timeoutField(UDP_TIMEOUTS.unreplied),
    udp_assured: timeoutField(UDP_TIMEOUTS.assured),
  }),
  form: {
    tabs: [
      { key: 'limits', fields: [{ name: 'enabled', widget: 'switch' }, { name: 'perip' }, { name: 'tcp' }, { name: 'udp' }, { name: 'exempt', widget: 'tags' }] },
      {
        key: 'timeouts',
        fields: [
          { name: 'tcp_generic' },
          { name: 'tcp_established' },
          { name: 'tcp_syn_sent' },
          { name: 'tcp_syn_recv' },
          { name: 'tcp_fin_wait' },
          { name: 'tcp_time_wait' },
          { name: 'tcp_close' },
          { name: 'tcp_close_wait' },
          { name: 'tcp_last_ack' },
          { name: 'udp_unreplied' },
          { name: 'udp_assured' },
        ],
      },
    ],
  },
});
export type FirewallSessionLimit = z.infer<typeof firewallSessionLimit.schema>;

export const firewallConnLimit = defineEntity({
  name: 'firewallConnLimit',
  path: 'sessionlimit/rules',
  module: 'connectionlimit',
  route: '/firewall/connectionlimit',
  // The device-wide limits and timeouts are a singleton of their own, one click away.
  links: [{ key: 'settings', route: '/firewall/connectionlimit/settings' }],
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    enabled: z.boolean().default(true),
    name: nameField(),
    ip: ipv4SelectorField().refine((v) => v !== '', { error: SELECTOR_MESSAGE }),
    perip: limitField(CONN_LIMIT_MAX).default(CONNECTION_LIMITS.perIp),
    tcp: limitField(CONN_LIMIT_MAX).default(CONNECTION_LIMITS.tcp),
    udp: limitField(CONN_LIMIT_MAX).default(CONNECTION_LIMITS.udp),
    comment: plainTextField(FIREWALL_COMMENT_MAX).default(''),
  }),
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'ip' },
      { field: 'perip', sortable: true },
      { field: 'tcp' },
      { field: 'udp' },
      { field: 'enabled', format: 'enabled' },
    ],
    defaultSort: 'name',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'name' },
          { name: 'ip' },
          { name: 'perip' },
          { name: 'tcp' },
          { name: 'udp' },
          { name: 'comment' },
        ],
      },
    ],
  },
  maxRows: 256,
});
export type FirewallConnLimit = z.infer<typeof firewallConnLimit.schema>;
