/**
 * SMS templates with `##name##` placeholders. The same text is approved at the gateway (where
 * the provider holds the template under its own id); here it is checked before it is saved and
 * rendered before each send, so a send never carries a raw `##name##` or a smuggled control
 * character.
 */

import { SMS_PLACEHOLDERS } from '@portico/schema';

export { SMS_PLACEHOLDERS };
export type SmsPlaceholder = (typeof SMS_PLACEHOLDERS)[number];

/** The three messages the hotspot sends: a new account, a due (expiry) notice, a verification code. */
export const SMS_TEMPLATE_KINDS = ['account', 'due', 'code'] as const;
export type SmsTemplateKind = (typeof SMS_TEMPLATE_KINDS)[number];

/** Longest template text accepted: a few concatenated SMS segments, far more than any approved template. */
export const SMS_TEMPLATE_MAX_LENGTH = 500;
/** Longest single value: providers cap a variable well below this (e.g. 35 characters at Alibaba Cloud). */
export const SMS_VALUE_MAX_LENGTH = 100;

export type SmsValues = Partial<Record<SmsPlaceholder, string | number>>;

export type SmsTemplateError =
  | 'sms.template.empty'
  | 'sms.template.tooLong'
  | 'sms.template.controlCharacter'
  | 'sms.template.unclosedPlaceholder'
  | 'sms.template.unknownPlaceholder'
  | 'sms.value.missing'
  | 'sms.value.controlCharacter'
  | 'sms.value.tooLong';

export type SmsTemplateCheck =
  | { ok: true; placeholders: SmsPlaceholder[] }
  | { ok: false; error: SmsTemplateError; name?: string };

/** A rendered message: the text (sent as-is by Twilio) and the values in order of first appearance (the parameters of Alibaba Cloud and Tencent Cloud templates). */
export interface RenderedSms {
  text: string;
  params: Array<{ name: SmsPlaceholder; value: string }>;
}

export type SmsRenderResult = ({ ok: true } & RenderedSms) | { ok: false; error: SmsTemplateError; name?: string };

// C0, DEL and C1 controls: line breaks included, since an SMS template is a single approved line.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

function isPlaceholder(name: string): name is SmsPlaceholder {
  return (SMS_PLACEHOLDERS as readonly string[]).includes(name);
}

/** Literal text at even indexes, placeholder names at odd ones; an even count of parts means a `##` was left open. */
function splitTemplate(text: string): string[] {
  return text.split('##');
}

export function validateTemplate(text: string): SmsTemplateCheck {
  if (text.trim() === '') return { ok: false, error: 'sms.template.empty' };
  if (text.length > SMS_TEMPLATE_MAX_LENGTH) return { ok: false, error: 'sms.template.tooLong' };
  if (CONTROL_CHARACTER.test(text)) return { ok: false, error: 'sms.template.controlCharacter' };
  const parts = splitTemplate(text);
  if (parts.length % 2 === 0) return { ok: false, error: 'sms.template.unclosedPlaceholder' };
  const placeholders: SmsPlaceholder[] = [];
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i]!;
    if (!isPlaceholder(name)) return { ok: false, error: 'sms.template.unknownPlaceholder', name };
    if (!placeholders.includes(name)) placeholders.push(name);
  }
  return { ok: true, placeholders };
}

export function renderTemplate(text: string, values: SmsValues): SmsRenderResult {
  const check = validateTemplate(text);
  if (!check.ok) return check;
  const params: RenderedSms['params'] = [];
  for (const name of check.placeholders) {
    const raw = values[name];
    if (raw === undefined || raw === '') return { ok: false, error: 'sms.value.missing', name };
    const value = String(raw);
    if (CONTROL_CHARACTER.test(value)) return { ok: false, error: 'sms.value.controlCharacter', name };
    if (value.length > SMS_VALUE_MAX_LENGTH) return { ok: false, error: 'sms.value.tooLong', name };
    params.push({ name, value });
  }
  const byName = new Map(params.map((p) => [p.name, p.value]));
  const rendered = splitTemplate(text)
    .map((part, i) => (i % 2 === 0 ? part : byName.get(part as SmsPlaceholder)!))
    .join('');
  return { ok: true, text: rendered, params };
}
