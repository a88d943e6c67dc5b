import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';

/**
 * Smart QoS switches (spec §3 Flow "base: qos, qosmode, p2pblock, balance"):
 * - `qos` turns shaping on: every WAN's upload and the LAN's download go through the four
 *   priority classes and the IP/MAC bandwidth rules;
 * - `qosmode` `smart` puts well-known interactive traffic (DNS, ICMP, NTP, SSH, remote desktop)
 *   in Priority and web traffic in Express before the port and domain rules; `custom` leaves
 *   everything in Normal unless a rule says otherwise;
 * - `p2pblock` drops BitTorrent handshakes and its well-known ports on forwarded traffic;
 * - `balance` spreads new LAN connections over the WANs by the load-balance weights and sends
 *   traffic to an ISP's networks through the WAN of that ISP.
 */
export const QOS_MODES = ['smart', 'custom'] as const;

export const qosBase = defineEntity({
  name: 'qosBase',
  path: 'flow/qos',
  module: 'smartqos',
  kind: 'singleton',
  schema: z.object({
    qos: z.boolean().default(false),
    qosmode: z.enum(QOS_MODES, { error: 'validation.option' }).default('smart'),
    p2pblock: z.boolean().default(false),
    balance: z.boolean().default(false),
  }),
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'qos', widget: 'switch' },
          { name: 'qosmode', widget: 'select', options: QOS_MODES, visibleWhen: { field: 'qos', equals: true } },
          { name: 'p2pblock', widget: 'switch' },
          { name: 'balance', widget: 'switch' },
        ],
      },
    ],
  },
});
export type QosBase = z.infer<typeof qosBase.schema>;
