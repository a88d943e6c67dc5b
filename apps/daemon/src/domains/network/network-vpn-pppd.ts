import { isIp, isHostname } from '@portico/schema';
import { assertInert } from '../../engine/engine-types.js';
import { RenderValueError } from './network-syntax.js';

/**
 * pppd options files (pppd(8) "OPTIONS FILES"), shared by PPPoE WANs and the PPTP and L2TP
 * clients. pppd splits a line into words; a word may be double-quoted, and inside quotes a
 * backslash escapes the next character (and `\n`, `\t`, octal and hex sequences are decoded),
 * `#` outside quotes starts a comment. Rendered words are therefore plain tokens, or a
 * double-quoted string in which only `\` and `"` are escaped and no other backslash appears.
 *
 * Passwords never enter an options file: they go to a separate 0600 file. For the pppd the
 * daemon starts (PPPoE WANs, PPTP clients) it is hex-encoded, so no character of a password can
 * be read as syntax by any parser on the way; the dialler decodes it and hands it to pppd on a
 * file descriptor (pppd's passwordfd plugin), which keeps it off the command line and out of
 * the environment. The pppd xl2tpd starts for an L2TP client cannot be given a descriptor, so
 * its secret file is a pppd options file of its own holding only `password`, every byte an
 * octal escape (see renderPppPasswordOptions), which the tunnel's options file includes.
 */

/** A bare pppd word: characters pppd and a shell take literally. */
const BARE_WORD = /^[A-Za-z0-9._:/@+=-]+$/;

/** A value as one pppd word: bare when it can be, else double-quoted with `\` and `"` escaped. */
export function pppdWord(value: string): string {
  assertInert(value, 'pppd word');
  if (value === '') throw new RenderValueError('an empty pppd word cannot be rendered');
  if (BARE_WORD.test(value) && !value.startsWith('-')) return value;
  if (!/^[\x20-\x7e]+$/.test(value)) throw new RenderValueError(`pppd word ${JSON.stringify(value)} cannot be rendered`);
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * A VPN server or PPPoE peer as a single token that pppd, a shell (the PPTP `pty` command) and
 * xl2tpd all take literally: a host name or an IP address.
 */
export function hostToken(value: string): string {
  assertInert(value, 'server');
  if (!(isIp(value) || isHostname(value)) || !/^[A-Za-z0-9:][A-Za-z0-9.:-]*$/.test(value)) {
    throw new RenderValueError(`server ${JSON.stringify(value)} cannot be rendered`);
  }
  return value;
}

/** An ISP or VPN account name as pppd's `user`/`name` word (never starting with `-`). */
export function accountToken(value: string): string {
  assertInert(value, 'account');
  if (!/^[A-Za-z0-9._@+][A-Za-z0-9._@+-]{0,63}$/.test(value)) throw new RenderValueError(`account ${JSON.stringify(value)} cannot be rendered`);
  return value;
}

/** One line of an options file: an option and its arguments, already rendered as words. */
export type PppdLine = readonly [option: string, ...words: string[]];

/** The options pppd files may carry; anything else fails the check. */
const PPPD_OPTIONS = new Set([
  'plugin',
  'user',
  'name',
  'remotename',
  'ifname',
  'ipparam',
  'linkname',
  'pty',
  'noauth',
  'hide-password',
  'persist',
  'maxfail',
  'holdoff',
  'lcp-echo-interval',
  'lcp-echo-failure',
  'mtu',
  'mru',
  'noipdefault',
  'defaultroute',
  'nodefaultroute',
  'defaultroute-metric',
  'usepeerdns',
  '+ipv6',
  'noipv6',
  'require-mppe-128',
  'refuse-eap',
  'refuse-pap',
  'refuse-chap',
  'refuse-mschap',
  'nobsdcomp',
  'nodeflate',
  'noccp',
  'novj',
  'nodetach',
  'file',
]);

export function renderPppdOptions(comment: readonly string[], lines: readonly PppdLine[]): string {
  const out = comment.map((line) => `# ${assertInert(line, 'comment')}`);
  for (const [option, ...words] of lines) {
    if (!PPPD_OPTIONS.has(option) && !/^nic-[A-Za-z0-9][A-Za-z0-9._-]{0,14}$/.test(option)) throw new RenderValueError(`pppd option ${option} is not known`);
    out.push([option, ...words].join(' '));
  }
  return `${out.join('\n')}\n`;
}

const WORD = /^(?:[A-Za-z0-9._:/@+=-]+|"(?:[\x20-\x21\x23-\x5b\x5d-\x7e]|\\[\\"])*")$/;

/**
 * Structural check of a rendered pppd options file: every line a printable-ASCII comment or a
 * known option followed by single-space separated words, each bare or a well-formed quoted
 * string. Returns the problems, one per line; empty when the file is fine.
 */
export function checkPppdOptions(content: string): string[] {
  const problems: string[] = [];
  if (!content.endsWith('\n')) problems.push('file does not end with a newline');
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, index) => {
    const at = `line ${index + 1}`;
    if (!/^[\x20-\x7e]*$/.test(line)) return problems.push(`${at}: not printable ASCII`);
    if (line === '' || line.startsWith('# ') || line === '#') return undefined;
    // Split on spaces outside quotes.
    const words = line.match(/"(?:[^"\\]|\\.)*"|[^ ]+/g) ?? [];
    if (words.join(' ') !== line) return problems.push(`${at}: words are not single-space separated`);
    const [option, ...rest] = words;
    if (!PPPD_OPTIONS.has(option!) && !/^nic-[A-Za-z0-9][A-Za-z0-9._-]{0,14}$/.test(option!)) return problems.push(`${at}: unknown option ${option}`);
    if (rest.some((word) => !WORD.test(word))) return problems.push(`${at}: malformed word`);
    return undefined;
  });
  return problems;
}

/** The secret file of a PPP link: the password hex-encoded, one line. */
export function renderPppSecret(what: string, password: string): string {
  assertInert(password, 'password');
  if (password === '') throw new RenderValueError('an empty password cannot be rendered');
  return `# ${assertInert(what, 'comment')}\npassword-hex ${Buffer.from(password, 'utf8').toString('hex')}\n`;
}

export function checkPppSecret(content: string): string[] {
  return /^# [\x20-\x7e]+\npassword-hex (?:[0-9a-f]{2})+\n$/.test(content) ? [] : ['not a PPP secret file'];
}

/**
 * The secret file of the pppd xl2tpd starts: a pppd options file with one `password` option.
 * pppd's word reader decodes `\ooo` (up to three octal digits) inside a word, so each byte is
 * written as exactly three: no character of the password appears in the file, and nothing in
 * it is syntax but the quotes.
 */
export function renderPppPasswordOptions(what: string, password: string): string {
  assertInert(password, 'password');
  if (password === '') throw new RenderValueError('an empty password cannot be rendered');
  const escaped = [...Buffer.from(password, 'utf8')].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');
  return `# ${assertInert(what, 'comment')}\npassword "${escaped}"\n`;
}

export function checkPppPasswordOptions(content: string): string[] {
  return /^# [\x20-\x7e]+\npassword "(?:\\[0-3][0-7]{2})+"\n$/.test(content) ? [] : ['not a pppd password file'];
}

/** The password a secret file holds (for the dialler). */
export function readPppSecret(content: string): string | null {
  const match = /^password-hex ((?:[0-9a-f]{2})+)$/m.exec(content);
  return match ? Buffer.from(match[1]!, 'hex').toString('utf8') : null;
}
