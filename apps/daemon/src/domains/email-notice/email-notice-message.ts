import { randomBytes } from 'node:crypto';
import { isEmailAddress, isSafeText, type Language } from '@portico/schema';
import { mailResources } from '@portico/i18n/mail';

/**
 * One e-mail notice as RFC 5322 text (RFC 2045/2047 for the UTF-8 parts): the subject as
 * base64 encoded words, the body base64, lines ending CRLF. Nothing a caller gives reaches a
 * header unencoded except the two addresses, which must be plain addr-specs: a value that
 * could end a header (CR, LF) or add a recipient is refused, never cleaned.
 */

export class MessageRefused extends Error {}

export interface MessageInput {
  from: string;
  to: string;
  subject: string;
  body: string;
  language: Language;
  /** Milliseconds since the epoch: the Date header. */
  date: number;
  /** The Message-ID's right side (the device's name); a host-name shaped value or 'portico.invalid'. */
  idDomain?: string;
}

/** An encoded word is at most 75 characters (RFC 2047 §2): 45 bytes give 60 base64 characters. */
const WORD_BYTES = 45;
const BODY_LINE = 76;

/** `=?UTF-8?B?…?=` words of at most 45 bytes each, never splitting a character. */
export function encodeWords(text: string): string[] {
  const words: string[] = [];
  let chunk: string[] = [];
  let size = 0;
  for (const char of text) {
    const bytes = Buffer.byteLength(char, 'utf8');
    if (size + bytes > WORD_BYTES && chunk.length) {
      words.push(chunk.join(''));
      chunk = [];
      size = 0;
    }
    chunk.push(char);
    size += bytes;
  }
  if (chunk.length) words.push(chunk.join(''));
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`);
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** RFC 5322 §3.3 date-time in UTC (`+0000`), independent of the host's locale. */
export function rfc5322Date(ms: number): string {
  const d = new Date(ms);
  return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}

const ID_DOMAIN = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;

/** The whole message, ready for curl's `--upload-file -`. */
export function composeMessage(input: MessageInput): string {
  for (const address of [input.from, input.to]) {
    if (!isEmailAddress(address)) throw new MessageRefused('not a plain e-mail address');
  }
  if (!isSafeText(input.subject)) throw new MessageRefused('the subject holds control characters');
  const domain = input.idDomain && ID_DOMAIN.test(input.idDomain) ? input.idDomain : 'portico.invalid';
  const id = `${input.date.toString(36)}.${randomBytes(12).toString('hex')}@${domain}`;
  // Folding between encoded words: CRLF and a space (RFC 5322 §2.2.3).
  const subject = encodeWords(input.subject).join('\r\n ');
  const body = Buffer.from(input.body.replace(/\r?\n/g, '\r\n'), 'utf8').toString('base64');
  const bodyLines = body.match(new RegExp(`.{1,${BODY_LINE}}`, 'g')) ?? [];
  const headers = [
    `From: ${input.from}`,
    `To: ${input.to}`,
    `Subject: ${subject}`,
    `Date: ${rfc5322Date(input.date)}`,
    `Message-ID: <${id}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=UTF-8',
    'Content-Transfer-Encoding: base64',
    `Content-Language: ${input.language}`,
    // RFC 3834: machine-made, so autoresponders stay quiet.
    'Auto-Submitted: auto-generated',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${bodyLines.join('\r\n')}\r\n`;
}

export type MailKind = keyof (typeof mailResources)['en-US']['subject'];

/** Fills `{{name}}` placeholders; a value is one line of text (control characters become spaces). */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => (values[name] ?? '').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' '));
}

/** Subject and body of one notice in one language, from the locale texts. */
export function noticeText(kind: MailKind, language: Language, values: Readonly<Record<string, string>>): { subject: string; body: string } {
  const texts = mailResources[language];
  return {
    subject: fillTemplate(texts.subject[kind], values),
    body: `${fillTemplate(texts.body[kind], values)}\n\n${fillTemplate(texts.footer, values)}\n`,
  };
}
