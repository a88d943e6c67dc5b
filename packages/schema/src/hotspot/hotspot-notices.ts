import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { integerInRange } from '../common/field-base.js';
import { portField } from '../common/port-fields.js';
import { httpUrlField, interfaceNameField, LAN_SIDE_REF } from '../network/network-fields.js';
import { REMOTE_REMINDER } from '../constants/hotspot-defaults.js';
import { blankLines, linesField, zBool } from './hotspot-fields.js';

/** Page templates of the expiry notice. */
export const REMINDER_TEMPLATES = ['default', 'simple'] as const;

/**
 * Remote reminder (spec §3, /hotspot/expirationnotice): users whose account is about to
 * expire are shown a notice (and an SMS when enabled) every `interval` hours, with a renewal
 * URL reached on `port`.
 */
export const hotspotReminder = defineEntity({
  name: 'hotspotReminder',
  path: 'auth/reminder',
  module: 'expirationnotice',
  route: '/hotspot/expirationnotice',
  kind: 'singleton',
  schema: z.object({
    enabled: zBool().default(false),
    sms: zBool().default(false),
    /** Refresh the notice page until the user acknowledges it. */
    refresh: zBool().default(false),
    url: httpUrlField({ allowEmpty: true }).default(''),
    interval: integerInRange(1, 720, 'validation.hotspot.reminderInterval').default(REMOTE_REMINDER.interval),
    port: portField().default(REMOTE_REMINDER.port),
    content: linesField(50, 256).default([]),
    template: z.enum(REMINDER_TEMPLATES, { error: 'validation.option' }).default('default'),
  }),
  refine(value, ctx) {
    if (value.enabled && blankLines(value.content) && value.url === '') ctx.addIssue('content', 'validation.required');
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'sms', widget: 'switch' },
          { name: 'refresh', widget: 'switch' },
          { name: 'url' },
          { name: 'interval' },
          { name: 'port' },
          { name: 'content', widget: 'lines' },
          { name: 'template', widget: 'select', options: REMINDER_TEMPLATES },
        ],
      },
    ],
  },
});
export type HotspotReminder = z.infer<typeof hotspotReminder.schema>;

/** Local reminder (spec §3, /hotspot/localnotice): a notice shown to clients of some interfaces. */
export const hotspotLocalNotice = defineEntity({
  name: 'hotspotLocalNotice',
  path: 'auth/localnotice',
  module: 'localnotice',
  route: '/hotspot/localnotice',
  kind: 'singleton',
  schema: z.object({
    enabled: zBool().default(false),
    interfaces: z
      .array(interfaceNameField())
      .max(32, { error: 'validation.tooBig' })
      .refine((v) => new Set(v).size === v.length, { error: 'validation.hotspot.duplicate' })
      .default([]),
    content: linesField(50, 256).default([]),
  }),
  refine(value, ctx) {
    if (value.enabled && blankLines(value.content)) ctx.addIssue('content', 'validation.required');
    if (value.enabled && value.interfaces.length === 0) ctx.addIssue('interfaces', 'validation.required');
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'interfaces', ref: LAN_SIDE_REF },
          { name: 'content', widget: 'lines' },
        ],
      },
    ],
  },
});
export type HotspotLocalNotice = z.infer<typeof hotspotLocalNotice.schema>;
