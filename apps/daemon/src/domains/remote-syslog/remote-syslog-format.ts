import { SYSLOG_SEVERITIES } from '@portico/schema';

/**
 * RFC 5424 messages and their framing: one datagram each over UDP (RFC 5426), octet counting
 * (`MSG-LEN SP SYSLOG-MSG`) over TCP (RFC 6587 §3.4.1) and TLS (RFC 5425 §4.3).
 */

export type Severity = (typeof SYSLOG_SEVERITIES)[number];

export const FACILITY = { kern: 0, user: 1, daemon: 3, auth: 4, syslog: 5, local0: 16 } as const;
export type Facility = keyof typeof FACILITY;

export interface SyslogMessage {
  facility: Facility;
  severity: Severity;
  /** APP-NAME, e.g. `portico` or `kernel`. */
  app: string;
  /** MSGID: what kind of event, e.g. `config`. */
  msgid?: string;
  text: string;
  /** ms since the epoch. */
  time: number;
}

export function severityCode(severity: Severity): number {
  return SYSLOG_SEVERITIES.indexOf(severity);
}

/** RFC 5424 header fields: PRINTUSASCII without space, 1..max characters, else NILVALUE. */
function headerField(value: string | undefined, max: number): string {
  const clean = (value ?? '').replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return clean === '' ? '-' : clean;
}

/** The free text with every control character (and line break) made a space: one inert line. */
function messageText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').slice(0, 4000);
}

export function formatRfc5424(message: SyslogMessage, hostname: string, procid: number): string {
  const pri = FACILITY[message.facility] * 8 + severityCode(message.severity);
  const stamp = new Date(message.time).toISOString();
  return `<${pri}>1 ${stamp} ${headerField(hostname, 255)} ${headerField(message.app, 48)} ${headerField(String(procid), 128)} ${headerField(message.msgid, 32)} - ${messageText(message.text)}`;
}

/** Octet-counting frame for stream transports: the length in bytes of the UTF-8 message. */
export function octetFrame(line: string): Buffer {
  const body = Buffer.from(line, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}

/**
 * Reads the kernel's /dev/kmsg records (`prio,seq,usec,flags;text`): the severity is the low
 * three bits of prio, the facility the rest (0 = kern).
 */
export function parseKmsg(record: string): { severity: Severity; facility: Facility; text: string } | null {
  const semi = record.indexOf(';');
  if (semi < 0) return null;
  const prio = Number(record.slice(0, record.indexOf(',')));
  if (!Number.isInteger(prio) || prio < 0) return null;
  const text = record.slice(semi + 1).split('\n')[0] ?? '';
  return { severity: SYSLOG_SEVERITIES[prio & 7]!, facility: prio >> 3 === 0 ? 'kern' : 'user', text };
}
