import { z } from 'zod';

/**
 * The logs of spec §1 and §2 (Logging), read, cleaned and downloaded through the one call
 * `sysconf/log` (spec §7): `action` get, clean or download, and for a download the file
 * extension. The daemon's logs domain answers it; the console's log pages call it.
 */

/** Every log, by the name the call carries. `dhcp` is the security log (spec: DHCP logs). */
export const LOG_NAMES = ['system', 'port', 'sms', 'auth', 'ipsec', 'wireless', 'dhcp'] as const;
export type LogName = (typeof LOG_NAMES)[number];

/** The page (menu module) of each log: its permission is the log's. */
export const LOG_PAGES: Readonly<Record<LogName, string>> = {
  system: 'systemlogs',
  port: 'portlogs',
  sms: 'smslogs',
  auth: 'authlogs',
  // The IPsec log has no page of its own under /logging: it belongs to the VPN client's.
  ipsec: 'vpnclient',
  wireless: 'wirelesslogs',
  dhcp: 'securitylogs',
};

/** syslog severities; the index is the severity number (0 emergency … 7 debug). */
export const LOG_LEVELS = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Download file extensions: plain text, or gzip-compressed text. */
export const LOG_EXTENSIONS = ['txt', 'gz'] as const;
export type LogExtension = (typeof LOG_EXTENSIONS)[number];

export const LOG_PAGE_SIZES = [20, 50, 100, 200] as const;
/** Matches a page can reach, newest first; a search narrows an older stretch. */
export const LOG_WINDOW_MAX = 10_000;
/** Longest search text. */
export const LOG_TEXT_MAX = 200;

const millis = z.coerce.number({ error: 'validation.integer' }).int({ error: 'validation.integer' }).min(0, { error: 'validation.integer' }).max(8.64e15, { error: 'validation.integer' });

/** The filter of a read or a download; everything optional. Query strings carry strings. */
export const logFilterSchema = z.object({
  name: z.enum(LOG_NAMES, { error: 'validation.option' }),
  /** Oldest time shown, ms since the epoch, inclusive. */
  from: millis.optional(),
  /** Newest time shown, ms since the epoch, inclusive. */
  to: millis.optional(),
  /** The least severe level shown: `warning` shows emerg … warning. */
  level: z.enum(LOG_LEVELS, { error: 'validation.option' }).optional(),
  /** Case-insensitive text the message (or its origin) contains. */
  text: z
    .string()
    .max(LOG_TEXT_MAX, { error: 'validation.tooBig' })
    // A search is plain text: a control character cannot be typed and is never stored.
    .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), { error: 'validation.invalid' })
    .optional(),
});

export const logRequestSchema = logFilterSchema.extend({
  action: z.enum(['get', 'clean', 'download'], { error: 'validation.option' }).default('get'),
  page: z.coerce.number({ error: 'validation.integer' }).int({ error: 'validation.integer' }).min(1, { error: 'validation.integer' }).max(LOG_WINDOW_MAX, { error: 'validation.integer' }).default(1),
  size: z.coerce.number({ error: 'validation.integer' }).refine((n) => (LOG_PAGE_SIZES as readonly number[]).includes(n), { error: 'validation.option' }).default(50),
  ext: z.enum(LOG_EXTENSIONS, { error: 'validation.option' }).default('txt'),
});
export type LogRequest = z.infer<typeof logRequestSchema>;

/**
 * One entry. `text` is what the system wrote (hostile text: the console shows it escaped);
 * an entry the daemon makes carries an i18n `key` with `values` instead, which the console
 * translates. `origin` is the program, device or interface that wrote it.
 */
export const logEntrySchema = z.object({
  time: z.number(),
  level: z.enum(LOG_LEVELS),
  origin: z.string().optional(),
  text: z.string().optional(),
  key: z.string().optional(),
  values: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
export type LogEntry = z.infer<typeof logEntrySchema>;

export const logPageSchema = z.object({
  /** Newest first. */
  items: z.array(logEntrySchema),
  /** Every entry that matches the filter. */
  total: z.number(),
  /** Whether the log can be cleaned from here. */
  cleanable: z.boolean(),
  /** Where the log is read from: `file`, `journal`, `memory`, or `absent` when nothing writes it here. */
  source: z.enum(['file', 'journal', 'memory', 'absent']),
});
export type LogPage = z.infer<typeof logPageSchema>;
