import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { fieldErrors, MSG, type HotspotSms } from '@portico/schema';
import type { AppContext } from '../../../app-context.js';
import { failure, success } from '../../../plugins/api-envelope.js';
import { sendSms } from './sms-providers.js';
import { smsCredentials, smsSettings } from './sms-settings.js';
import type { SmsSignIn } from './sms-signin.js';
import { renderTemplate, SMS_TEMPLATE_KINDS, type SmsTemplateKind, type SmsValues } from './sms-template.js';

/** Values a test message is rendered with, so every placeholder of a template has one. */
const SAMPLE_VALUES: SmsValues = { account: 'guest01', password: '864213', custom: 'Portico', upload: '1024', download: '4096', expire: '2030-01-01', code: '864213' };

const testBody = z.object({
  action: z.literal('test').optional(),
  phone: z.string().min(1, { error: 'validation.required' }).max(20, { error: 'validation.sms.phone' }),
  kind: z.enum(SMS_TEMPLATE_KINDS, { error: 'validation.option' }).default('code'),
});


const TEMPLATE_OF: Record<SmsTemplateKind, { text: keyof HotspotSms; id: keyof HotspotSms }> = {
  account: { text: 'accountTemplate', id: 'accountTemplateId' },
  due: { text: 'dueTemplate', id: 'dueTemplateId' },
  code: { text: 'codeTemplate', id: 'codeTemplateId' },
};

/**
 * POST /api/auth/smstest: sends one message of a template through the configured platform with
 * sample values, so the administrator sees the gateway work (or why not) before guests rely on
 * it. Every send lands in the SMS log with its outcome, never with its text; the SMS log page
 * (/logging/smslogs) reads, cleans and downloads it through the logs domain.
 */
export function registerSmsRoutes(app: FastifyInstance, ctx: AppContext, sms: SmsSignIn): void {
  app.post('/api/auth/smstest', { config: { policy: { module: 'sms', effect: 'action' }, doc: { summary: 'Send a test message of a template (account, due, code)' } } }, async (request) => {
    const body = testBody.safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    const settings = smsSettings(ctx);
    if (!settings.enabled) return failure('msg.sms.disabled');
    const template = TEMPLATE_OF[body.data.kind];
    const rendered = renderTemplate(String(settings[template.text]), SAMPLE_VALUES);
    if (!rendered.ok) return failure(MSG.invalid, { [template.text]: `msg.${rendered.error}` });
    const endpoint = settings.endpoint ? { baseUrl: settings.endpoint.replace(/\/$/, '') } : {};
    const result = await sendSms(smsCredentials(settings), { phone: body.data.phone, templateId: String(settings[template.id]), rendered }, endpoint);
    sms.record({ time: ctx.now(), platform: settings.platform, phone: body.data.phone, kind: body.data.kind, outcome: result.ok ? 'sms.send.ok' : result.error });
    return result.ok ? success({ id: result.providerMessageId }) : failure(`msg.${result.error}`, undefined, { providerCode: result.providerCode ?? null });
  });

  // The SMS log page reads the send log through the logs domain (sysconf/log, name sms):
  // one entry per send, the masked number, the kind of message and its outcome, never a text.
  ctx.logs.provide('sms', {
    entries: () =>
      sms.log.toJSON().map((entry) => ({
        time: entry.time,
        level: entry.outcome === 'sms.send.ok' ? ('info' as const) : ('err' as const),
        origin: entry.platform,
        key: entry.outcome === 'sms.send.ok' ? 'logs.sms.sent' : 'logs.sms.failed',
        values: { phone: entry.phone, kindKey: `smsLog.kind.${entry.kind}`, outcomeKey: `msg.${entry.outcome}` },
      })),
    clear: () => sms.clearLog(),
  });
}
