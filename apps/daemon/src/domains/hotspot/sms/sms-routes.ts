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

const logBody = z.object({ action: z.enum(['get', 'clean', 'download'], { error: 'validation.option' }) });
const logQuery = z.object({ action: z.enum(['get', 'download'], { error: 'validation.option' }).default('get') });

/** The SMS log page (/logging/smslogs) is its own module in the menu. */
export const SMS_LOG_URL = '/api/hotspot/smslog';

const TEMPLATE_OF: Record<SmsTemplateKind, { text: keyof HotspotSms; id: keyof HotspotSms }> = {
  account: { text: 'accountTemplate', id: 'accountTemplateId' },
  due: { text: 'dueTemplate', id: 'dueTemplateId' },
  code: { text: 'codeTemplate', id: 'codeTemplateId' },
};

/**
 * POST /api/auth/smstest: sends one message of a template through the configured platform with
 * sample values, so the administrator sees the gateway work (or why not) before guests rely on
 * it. Every send lands in the SMS log with its outcome, never with its text; the log page
 * reads it (GET, or POST with action get), empties it (action clean) and downloads it as a
 * text file (action download: `{ name, content }`).
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

  const list = () => {
    const items = sms.log.list();
    return success({ items, total: items.length });
  };
  // The file, oldest first, one entry a line; every field is an enum, a time or a masked number.
  const file = () => {
    const lines = sms.log.toJSON().map((e) => [new Date(e.time).toISOString(), e.platform, e.phone, e.kind, e.outcome].join(' '));
    return success({ name: 'sms.log', content: lines.length ? `${lines.join('\n')}\n` : '' });
  };
  // Reading (action get or download) needs only read access; cleaning is a write.
  app.get(SMS_LOG_URL, { config: { policy: { module: 'smslogs', effect: 'read' }, doc: { summary: 'The SMS log, newest first (numbers masked, no texts); ?action=download: as a text file' } } }, async (request) => {
    const query = logQuery.safeParse(request.query ?? {});
    if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
    return query.data.action === 'download' ? file() : list();
  });
  app.post(SMS_LOG_URL, { config: { policy: { module: 'smslogs', effect: 'write' }, doc: { summary: 'The SMS log: get it, or clean it' } } }, async (request) => {
    const body = logBody.safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    if (body.data.action === 'clean') sms.clearLog();
    return body.data.action === 'download' ? file() : list();
  });
}
