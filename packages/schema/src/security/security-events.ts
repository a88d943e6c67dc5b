import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';

const flag = () => z.boolean({ error: 'validation.type' });

/**
 * Security events (spec §1, §7 `sysconf/events`): which health findings are recorded as
 * events. Each finding of an enabled kind appends one event when it is first seen on an
 * interface; the Health page shows the events and these switches.
 */
export const securityEvents = defineEntity({
  name: 'securityEvents',
  path: 'sysconf/events',
  module: 'health',
  kind: 'singleton',
  schema: z.object({
    dhcpServer: flag().default(true),
    pppoeServer: flag().default(true),
    loop: flag().default(true),
    ipConflict: flag().default(true),
  }),
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'dhcpServer', widget: 'switch' },
          { name: 'pppoeServer', widget: 'switch' },
          { name: 'loop', widget: 'switch' },
          { name: 'ipConflict', widget: 'switch' },
        ],
      },
    ],
  },
});
export type SecurityEvents = z.infer<typeof securityEvents.schema>;
