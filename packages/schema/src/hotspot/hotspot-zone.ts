import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { nameField } from '../common/text-fields.js';
import { interfaceNameField, LAN_SIDE_REF } from '../network/network-fields.js';
import { limitField, TIME_UNITS, timeUnitField } from '../common/quantity-fields.js';
import { authTimeValid, durationValueField, zBool } from './hotspot-fields.js';

/**
 * Authentication models a zone can use (spec §1, §3 authmodel): the local web portal with its
 * methods, or one of the external systems configured on their own pages.
 */
export const AUTH_MODELS = ['webportal', 'radius', 'ldap', 'sms', 'cloudportal', 'rusystem', 'wifidog', 'cmcc', 'weixin', 'social', 'none'] as const;
export type AuthModel = (typeof AUTH_MODELS)[number];

/** Idle time-out of a zone in minutes: a day at most, a quarter of an hour unless set. */
export const IDLE_MINUTES_MAX = 1440;
export const IDLE_MINUTES_DEFAULT = 15;

/** Service zones (spec §2 /hotspot/servicezone): where authentication applies, per interface. */
export const hotspotZone = defineEntity({
  name: 'hotspotZone',
  path: 'auth/zone',
  module: 'servicezone',
  route: '/hotspot/servicezone',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    name: nameField(),
    enabled: zBool().default(true),
    ifname: interfaceNameField(),
    authmodel: z.enum(AUTH_MODELS, { error: 'validation.option' }).default('webportal'),
    /** How long an authentication lasts before the client sees the portal again. */
    authtime: durationValueField().default(1),
    authtime_unit: timeUnitField().default('days'),
    /** Minutes without traffic after which a client is signed out; 0 = never. */
    idletime: limitField(IDLE_MINUTES_MAX).default(IDLE_MINUTES_DEFAULT),
    /** Serve the portal over HTTPS. */
    https: zBool().default(false),
  }),
  refine(value, ctx) {
    if (!authTimeValid(value.authtime, value.authtime_unit)) ctx.addIssue('authtime', 'validation.hotspot.authTime');
  },
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'ifname', sortable: true },
      { field: 'authmodel', format: 'option' },
      { field: 'enabled', format: 'enabled' },
    ],
    defaultSort: 'name',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'name' },
          { name: 'enabled', widget: 'switch' },
          { name: 'ifname', ref: LAN_SIDE_REF },
          { name: 'authmodel', widget: 'select', options: AUTH_MODELS },
          { name: 'authtime' },
          { name: 'authtime_unit', widget: 'select', options: TIME_UNITS },
          { name: 'idletime' },
          { name: 'https', widget: 'switch' },
        ],
      },
    ],
  },
  maxRows: 64,
});
export type HotspotZone = z.infer<typeof hotspotZone.schema>;
