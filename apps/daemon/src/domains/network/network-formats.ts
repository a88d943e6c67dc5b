import type { FileFormat } from '../../engine/file-format.js';
import { checkXl2tpd } from './network-vpn.js';
import { checkPppdOptions, checkPppPasswordOptions, checkPppSecret } from './network-vpn-pppd.js';
import { checkSwanctl } from './network-vpn-swanctl.js';
import { checkCharonConf } from './network-ike.js';

/** Lines of a file that carry syntax: not blank, not a comment. */
export function syntaxLines(content: string): string[] {
  return content.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
}

/** A check that every syntax line matches `line`; names the first that does not. */
function everyLine(line: RegExp, what: string): (content: string) => string | null {
  return (content) => {
    const bad = syntaxLines(content).find((l) => !line.test(l));
    return bad === undefined ? null : `not ${what}: ${JSON.stringify(bad.slice(0, 80))}`;
  };
}

/** The first problem a structural checker found, or null. */
function firstProblem(check: (content: string) => string[]): (content: string) => string | null {
  return (content) => check(content)[0] ?? null;
}

const IP_BATCH_LINE = /^(-[46] )?(link|address|addr|route|rule|neigh) [A-Za-z0-9 .:/_@-]+$/;
// Keys in dotted or slash form (slashes let interface names carry dots: net/ipv4/conf/eth0.35/…).
const SYSCTL_LINE = /^[a-z0-9_]+([./][A-Za-z0-9_.@-]+)+ = [0-9a-z ]+$/;

/**
 * The formats the Network section renders. nftables and dnsmasq are checked by their own
 * tools where they are installed; ip batches and sysctl files by a strict line grammar;
 * pppd, xl2tpd and strongSwan have no dry run that works without starting them, so their files
 * pass strict structural checkers of our own (network-vpn*.ts).
 */
export const NETWORK_FORMATS: readonly FileFormat[] = [
  { name: 'nft', command: (path) => ['nft', '-c', '-f', path] },
  { name: 'dnsmasq', command: (path) => ['dnsmasq', '--test', `--conf-file=${path}`] },
  // The batches build on each other (the prepare batch flushes what the state batch then sets).
  { name: 'ip-batch', builtin: everyLine(IP_BATCH_LINE, 'an ip batch command'), replayTogether: true },
  { name: 'sysctl', builtin: everyLine(SYSCTL_LINE, 'a sysctl setting') },
  { name: 'pppd', builtin: firstProblem(checkPppdOptions) },
  { name: 'ppp-secret', builtin: firstProblem(checkPppSecret) },
  { name: 'ppp-password', builtin: firstProblem(checkPppPasswordOptions) },
  { name: 'xl2tpd', builtin: firstProblem(checkXl2tpd) },
  { name: 'swanctl', builtin: firstProblem(checkSwanctl) },
  // strongSwan has no offline parser of its settings: charon's file is parsed back and every
  // setting held to the grammar of its key; charon's start judges last.
  { name: 'ike-charon', builtin: firstProblem(checkCharonConf) },
];
