import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { iptvLanTagField, wanTagField } from '../common/link-fields.js';
import { interfaceNameField, portNameField, WAN_REF } from './network-fields.js';

/**
 * IPTV (spec §3 "IPTV (enable, wantag, lantag, portnum, type)"). The set-top box sits on the
 * LAN port `portnum`. `bridge` joins the ISP's IPTV VLAN (`wantag` on the WAN's port) and that
 * port in one bridge whose internal VLAN is `lantag`; `igmp` routes multicast from the WAN
 * side to the LAN the port belongs to through an IGMP proxy.
 */
export const IPTV_TYPES = ['bridge', 'igmp'] as const;

export const iptv = defineEntity({
  name: 'iptv',
  path: 'iptv',
  module: 'iptv',
  route: '/appcenter/iptv',
  kind: 'singleton',
  schema: z.object({
    enable: z.boolean().default(false),
    type: z.enum(IPTV_TYPES, { error: 'validation.option' }).default('bridge'),
    /** The WAN interface the IPTV service arrives on. */
    wan: interfaceNameField({ allowEmpty: true }).default(''),
    wantag: wanTagField().default(0),
    lantag: iptvLanTagField(),
    portnum: portNameField({ allowEmpty: true }).default(''),
  }),
  refine(value, ctx) {
    if (!value.enable) return;
    if (value.wan === '') ctx.addIssue('wan', 'validation.required');
    if (value.portnum === '') ctx.addIssue('portnum', 'validation.required');
    // A bridge cannot take the WAN's own untagged traffic: the ISP's IPTV VLAN is needed.
    if (value.type === 'bridge' && value.wantag === 0) ctx.addIssue('wantag', 'validation.iptv.bridgeTag');
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enable', widget: 'switch' },
          { name: 'type', widget: 'select', options: IPTV_TYPES },
          { name: 'wan', ref: WAN_REF },
          { name: 'wantag' },
          { name: 'lantag', visibleWhen: { field: 'type', equals: 'bridge' } },
          { name: 'portnum' },
        ],
      },
    ],
  },
  cutsAccess: true,
});
export type Iptv = z.infer<typeof iptv.schema>;
