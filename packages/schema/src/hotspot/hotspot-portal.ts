import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { plainTextField } from '../common/text-fields.js';
import { passwordField } from '../common/account-fields.js';
import { TIME_UNITS, timeUnitField } from '../common/quantity-fields.js';
import { httpUrlField } from '../network/network-fields.js';
import { authTimeValid, durationValueField, HOTSPOT_MESSAGES, linesField, zBool } from './hotspot-fields.js';

/** Sign-in methods the local portal offers (portal API `methods`). */
export const PORTAL_METHODS = ['voucher', 'local', 'password', 'onekey'] as const;
export type PortalMethod = (typeof PORTAL_METHODS)[number];

/** Page templates the portal app ships. */
export const PORTAL_TEMPLATES = ['default', 'simple', 'business'] as const;

/**
 * The local web portal (spec §3 webportal, §2 /hotspot/localportal): the texts the portal
 * shows, its template, the sign-in methods and the shared password of the `password` method.
 * Picture, logo and custom page are uploaded files, not fields (see the upload routes).
 */
export const hotspotPortal = defineEntity({
  name: 'hotspotPortal',
  path: 'portal',
  module: 'localportal',
  route: '/hotspot/localportal',
  kind: 'singleton',
  schema: z.object({
    welcome: plainTextField(128).default(''),
    contact: plainTextField(64).default(''),
    copyright: plainTextField(128).default(''),
    logintext: linesField(20, 256).default([]),
    chargetext: linesField(20, 256).default([]),
    template: z.enum(PORTAL_TEMPLATES, { error: 'validation.option' }).default('default'),
    methods: z
      .array(z.enum(PORTAL_METHODS, { error: 'validation.option' }))
      .min(1, { error: HOTSPOT_MESSAGES.methods })
      .max(PORTAL_METHODS.length)
      .refine((v) => new Set(v).size === v.length, { error: HOTSPOT_MESSAGES.duplicate })
      .default(['voucher']),
    /** Pre-shared password of the `password` method; never read back. */
    password: passwordField().optional(),
    redirect_url: httpUrlField({ allowEmpty: true }).default(''),
    authtime: durationValueField().default(1),
    authtime_unit: timeUnitField().default('days'),
    /** Serve the uploaded custom page instead of the built-in portal. */
    customportal: zBool().default(false),
  }),
  writeOnly: ['password'],
  refine(value, ctx) {
    if (!authTimeValid(value.authtime, value.authtime_unit)) ctx.addIssue('authtime', 'validation.hotspot.authTime');
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'welcome' },
          { name: 'contact' },
          { name: 'copyright' },
          { name: 'logintext', widget: 'lines' },
          { name: 'chargetext', widget: 'lines' },
          { name: 'template', widget: 'select', options: PORTAL_TEMPLATES },
        ],
      },
      {
        key: 'auth',
        fields: [
          { name: 'methods', widget: 'tags' },
          { name: 'password', widget: 'password', keepWhenEmpty: true },
          { name: 'authtime' },
          { name: 'authtime_unit', widget: 'select', options: TIME_UNITS },
          { name: 'redirect_url' },
          { name: 'customportal', widget: 'switch' },
        ],
      },
    ],
  },
});
export type HotspotPortal = z.infer<typeof hotspotPortal.schema>;

/** Terms of service (spec §2 /hotspot/localportal/termofservice); they must be accepted (§5). */
export const hotspotTerms = defineEntity({
  name: 'hotspotTerms',
  path: 'portal/tos',
  module: 'localportal',
  route: '/hotspot/localportal/termofservice',
  kind: 'singleton',
  schema: z.object({
    title: plainTextField(64).default(''),
    content: linesField(200, 1000).default([]),
  }),
  form: { tabs: [{ key: 'basic', fields: [{ name: 'title' }, { name: 'content', widget: 'lines' }] }] },
});
export type HotspotTerms = z.infer<typeof hotspotTerms.schema>;
