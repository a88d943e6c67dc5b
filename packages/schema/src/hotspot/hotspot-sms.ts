import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { stringBase } from '../common/field-base.js';
import { codePointLength, isPrintableAscii, isSafeText, TEXT_CONTROL_MESSAGE } from '../common/text-guard.js';

/**
 * The SMS gateway (spec §3): one of three platforms with its credentials, and the templates of
 * the three messages the hotspot sends (a new account, a due notice, a verification code), each
 * as the text approved at the platform with `##name##` placeholders and the id the platform
 * gave it. `endpoint` overrides the platform's public API address (a private deployment).
 */
export const SMS_PLATFORMS = ['aliyun', 'tencent', 'twilio'] as const;
export const SMS_PLACEHOLDERS = ['account', 'password', 'custom', 'upload', 'download', 'expire', 'code'] as const;
export const SMS_TEMPLATE_MAX = 500;

/** Whether every `##…##` of a template names a known placeholder and none is left open. */
export function isSmsTemplate(text: string): boolean {
  const parts = text.split('##');
  // Odd parts sit between a pair of ##; an even count of parts means one is left open.
  if (parts.length % 2 === 0) return false;
  return parts.every((part, i) => i % 2 === 0 || (SMS_PLACEHOLDERS as readonly string[]).includes(part));
}

const smsTemplate = () =>
  stringBase()
    .refine(isSafeText, { error: TEXT_CONTROL_MESSAGE })
    .refine((v) => codePointLength(v) <= SMS_TEMPLATE_MAX, { error: 'validation.text.length' })
    .refine(isSmsTemplate, { error: 'validation.sms.placeholder' })
    .default('');
const credential = (max = 128) =>
  stringBase()
    .max(max, { error: 'validation.text.length' })
    .refine(isPrintableAscii, { error: 'validation.sms.ascii' })
    .default('');
const templateId = () => credential(64);

export const hotspotSms = defineEntity({
  name: 'hotspotSms',
  path: 'auth/sms',
  module: 'sms',
  route: '/hotspot/sms',
  kind: 'singleton',
  schema: z.object({
    enabled: z.boolean().default(false),
    platform: z.enum(SMS_PLATFORMS, { error: 'validation.option' }).default('aliyun'),
    endpoint: stringBase()
      .refine((v) => v === '' || /^https?:\/\/[A-Za-z0-9.:[\]-]+(:\d{1,5})?\/?$/.test(v), { error: 'validation.url' })
      .default(''),
    accessKeyId: credential(),
    accessKeySecret: credential(),
    secretId: credential(),
    secretKey: credential(),
    smsSdkAppId: credential(32),
    accountSid: stringBase()
      .refine((v) => v === '' || /^AC[0-9a-fA-F]{32}$/.test(v), { error: 'validation.sms.accountSid' })
      .default(''),
    authToken: credential(),
    from: credential(34),
    countryCode: stringBase()
      .refine((v) => /^\d{0,4}$/.test(v), { error: 'validation.sms.countryCode' })
      .default(''),
    signName: stringBase().refine(isSafeText, { error: TEXT_CONTROL_MESSAGE }).max(32, { error: 'validation.text.length' }).default(''),
    accountTemplate: smsTemplate(),
    accountTemplateId: templateId(),
    dueTemplate: smsTemplate(),
    dueTemplateId: templateId(),
    codeTemplate: smsTemplate(),
    codeTemplateId: templateId(),
  }),
  writeOnly: ['accessKeySecret', 'secretKey', 'authToken'],
  refine(value, ctx) {
    if (!value.enabled) return;
    const need = (field: keyof typeof value) => {
      if (value[field] === '') ctx.addIssue(field, 'validation.required');
    };
    if (value.platform === 'aliyun') ['accessKeyId', 'accessKeySecret', 'signName'].forEach((f) => need(f as never));
    if (value.platform === 'tencent') ['secretId', 'secretKey', 'smsSdkAppId', 'signName'].forEach((f) => need(f as never));
    if (value.platform === 'twilio') ['accountSid', 'authToken', 'from'].forEach((f) => need(f as never));
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'platform', widget: 'select', options: SMS_PLATFORMS },
          { name: 'accessKeyId', visibleWhen: { field: 'platform', equals: 'aliyun' } },
          { name: 'accessKeySecret', widget: 'password', keepWhenEmpty: true, visibleWhen: { field: 'platform', equals: 'aliyun' } },
          { name: 'secretId', visibleWhen: { field: 'platform', equals: 'tencent' } },
          { name: 'secretKey', widget: 'password', keepWhenEmpty: true, visibleWhen: { field: 'platform', equals: 'tencent' } },
          { name: 'smsSdkAppId', visibleWhen: { field: 'platform', equals: 'tencent' } },
          { name: 'signName', visibleWhen: { field: 'platform', in: ['aliyun', 'tencent'] } },
          { name: 'accountSid', visibleWhen: { field: 'platform', equals: 'twilio' } },
          { name: 'authToken', widget: 'password', keepWhenEmpty: true, visibleWhen: { field: 'platform', equals: 'twilio' } },
          { name: 'from', visibleWhen: { field: 'platform', equals: 'twilio' } },
          { name: 'countryCode', visibleWhen: { field: 'platform', equals: 'twilio' } },
          { name: 'endpoint' },
        ],
      },
      {
        key: 'templates',
        fields: [
          { name: 'accountTemplate', widget: 'textarea' },
          { name: 'accountTemplateId' },
          { name: 'dueTemplate', widget: 'textarea' },
          { name: 'dueTemplateId' },
          { name: 'codeTemplate', widget: 'textarea' },
          { name: 'codeTemplateId' },
        ],
      },
    ],
  },
});
export type HotspotSms = z.infer<typeof hotspotSms.schema>;
