import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { mtuField } from '../common/link-fields.js';
import { portNameField } from './network-fields.js';

/**
 * Port attributes (spec §3): per physical port, whether it is up, its link mode and MTU.
 * `auto` negotiates; the other modes fix speed (Mbit/s) and duplex. Gigabit needs
 * negotiation on copper, so there is no fixed 1000 half.
 */
export const LINK_MODES = ['auto', '10half', '10full', '100half', '100full', '1000full'] as const;
export type LinkMode = (typeof LINK_MODES)[number];

export const portAttribute = defineEntity({
  name: 'portAttribute',
  path: 'portattr',
  module: 'portattribute',
  route: '/netconf/portattribute',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    port: portNameField(),
    enabled: z.boolean().default(true),
    link_mode: z.enum(LINK_MODES, { error: 'validation.option' }).default('auto'),
    mtu: mtuField(),
  }),
  list: {
    columns: [
      { field: 'port', sortable: true },
      { field: 'link_mode', format: 'option' },
      { field: 'mtu' },
      { field: 'enabled', format: 'enabled' },
    ],
    defaultSort: 'port',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'port', addOnly: true },
          { name: 'enabled', widget: 'switch' },
          { name: 'link_mode', widget: 'select', options: LINK_MODES },
          { name: 'mtu' },
        ],
      },
    ],
  },
  cutsAccess: true,
  maxRows: 32,
});
export type PortAttribute = z.infer<typeof portAttribute.schema>;
