import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { checkedString, stringBase } from '../common/field-base.js';
import { isHostname, nameField, plainTextField } from '../common/text-fields.js';
import { isIpv4 } from '../common/ip-address.js';
import { portField } from '../common/port-fields.js';
import { isPrintableAscii, isSafeText, TEXT_CONTROL_MESSAGE } from '../common/text-guard.js';
import { LANGUAGES } from '../helpers/language-codes.js';
import { HEALTH_FINDING_KINDS } from './health-types.js';
import type { LogEntry } from '../logs/log-types.js';

/**
 * E-mail notice (spec §1 Security, §2 /security/emailnotice, §7 `sysconf/emailinfo`): the SMTP
 * server the device sends through, and who is told about which security events. The events are
 * the findings `sysconf/events` records.
 */
export const EMAIL_SECURITY = ['none', 'starttls', 'tls'] as const;
export type EmailSecurity = (typeof EMAIL_SECURITY)[number];
/** The usual port of each transport (RFC 8314: submission 587 with STARTTLS, 465 implicit TLS). */
export const EMAIL_PORTS: Readonly<Record<EmailSecurity, number>> = { none: 25, starttls: 587, tls: 465 };
export const EMAIL_EVENTS = HEALTH_FINDING_KINDS;
export type EmailEvent = (typeof EMAIL_EVENTS)[number];
/** A recipient's language: the device's (the server settings' `language`) or one of its own. */
export const EMAIL_LANGUAGES = ['device', ...LANGUAGES] as const;
export const EMAIL_ADDRESS_MAX = 254;
export const EMAIL_RECIPIENTS_MAX = 32;

// RFC 5322 dot-atom local part and a DNS host name: nothing that could end a header or an
// SMTP command (no space, CR, LF, '<', '>', ',', quotes), ASCII only (no SMTPUTF8).
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

/** An e-mail address as `local@domain`: a dot-atom (at most 64) and a host name with a dot. */
export function isEmailAddress(text: string): boolean {
  if (text.length > EMAIL_ADDRESS_MAX) return false;
  const at = text.lastIndexOf('@');
  if (at < 1) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  return local.length <= 64 && LOCAL_PART.test(local) && domain.includes('.') && isHostname(domain);
}

export function emailAddressField(options: { allowEmpty?: boolean } = {}) {
  return checkedString(isEmailAddress, 'validation.email.address', options);
}

export const emailServer = defineEntity({
  name: 'emailServer',
  path: 'sysconf/emailinfo',
  module: 'emailnotice',
  kind: 'singleton',
  schema: z.object({
    enabled: z.boolean().default(false),
    server: stringBase()
      .refine(isSafeText, { error: TEXT_CONTROL_MESSAGE })
      .refine((v) => v === '' || isIpv4(v) || isHostname(v), { error: 'validation.hostOrIp' })
      .default(''),
    port: portField().default(EMAIL_PORTS.starttls),
    security: z.enum(EMAIL_SECURITY, { error: 'validation.option' }).default('starttls'),
    /** Check the server's certificate against the system's trusted authorities. */
    verify: z.boolean().default(true),
    /** Empty: the server takes mail without authentication. */
    user: plainTextField(128)
      .refine(isPrintableAscii, { error: 'validation.email.ascii' })
      .default(''),
    password: plainTextField(128).default(''),
    sender: emailAddressField({ allowEmpty: true }).default(''),
    /** The language of recipients who chose the device's. */
    language: z.enum(LANGUAGES, { error: 'validation.option' }).default('en-US'),
  }),
  writeOnly: ['password'],
  refine(value, ctx) {
    if (!value.enabled) return;
    if (value.server === '') ctx.addIssue('server', 'validation.required');
    if (value.sender === '') ctx.addIssue('sender', 'validation.required');
    // Credentials over a plain connection would cross the network readable.
    if (value.user !== '' && value.security === 'none') ctx.addIssue('security', 'validation.email.plainAuth');
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'server' },
          { name: 'port' },
          { name: 'security', widget: 'select', options: EMAIL_SECURITY },
          { name: 'verify', widget: 'switch', visibleWhen: { field: 'security', in: ['starttls', 'tls'] } },
          { name: 'user' },
          { name: 'password', widget: 'password', keepWhenEmpty: true },
          { name: 'sender' },
          { name: 'language', widget: 'select', options: LANGUAGES },
        ],
      },
    ],
  },
});
export type EmailServer = z.infer<typeof emailServer.schema>;

export const emailRecipient = defineEntity({
  name: 'emailRecipient',
  path: 'sysconf/emailinfo/recipients',
  module: 'emailnotice',
  route: '/security/emailnotice',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    enabled: z.boolean().default(true),
    name: nameField(),
    address: emailAddressField(),
    events: z
      .array(z.enum(EMAIL_EVENTS, { error: 'validation.option' }), { error: 'validation.type' })
      .min(1, { error: 'validation.email.events' })
      .max(EMAIL_EVENTS.length)
      .refine((list) => new Set(list).size === list.length, { error: 'validation.email.events' }),
    language: z.enum(EMAIL_LANGUAGES, { error: 'validation.option' }).default('device'),
  }),
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'address', sortable: true },
      { field: 'events', format: 'tags' },
      { field: 'language', format: 'option' },
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
          { name: 'address' },
          { name: 'events', widget: 'multiselect', options: EMAIL_EVENTS },
          { name: 'language', widget: 'select', options: EMAIL_LANGUAGES },
        ],
      },
    ],
  },
  maxRows: EMAIL_RECIPIENTS_MAX,
});
export type EmailRecipient = z.infer<typeof emailRecipient.schema>;

/** POST sysconf/emailinfo/test: one message to one address with the saved server settings. */
export const emailTestBody = z.object({
  action: z.literal('test').default('test'),
  address: emailAddressField(),
  _: z.string().optional(),
});

/** Its answer: delivered, or the SMTP server's (or the connection's) error as text. */
export const emailTestResult = z.object({
  delivered: z.boolean(),
  /** What went wrong, as curl reported it (one line, control characters removed). */
  error: z.string(),
});
export type EmailTestResult = z.infer<typeof emailTestResult>;

/** GET sysconf/emailinfo/status: the outgoing queue and the latest results (newest first). */
export interface EmailNoticeStatus {
  waiting: number;
  sent: number;
  /** Dropped to keep the queue within its cap. */
  dropped: number;
  /** Refused for good (5xx, credentials) or too old. */
  givenUp: number;
  /** When the next attempt is due (ms), while the server is failing; else null. */
  retryAt: number | null;
  lastError: string;
  results: LogEntry[];
}
