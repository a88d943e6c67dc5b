import { PPP_SERVER_KINDS, type PppServerKind } from '@portico/schema';
import type { PppAccount } from '../hotspot-config/hotspot-config-public.js';
import { assertInert } from '../../engine/engine-types.js';
import { ipv4, RenderValueError } from '../network/network-public.js';
import { PPP_SERVER_NAME } from './ppp-server-files.js';

/**
 * pppd's secrets files. pppd 2.4.9 reads them from fixed paths (/etc/ppp/chap-secrets and
 * /etc/ppp/pap-secrets: it has no option to name others), so the PPP servers own both files on
 * the device; the network domain's dialled links never read them (their passwords reach pppd on
 * a descriptor). Each line is `client server secret addresses`: the server column is the name of
 * the one server the account belongs to (`portico-pppoe` …), so an account of type pppoe
 * authenticates on the PPPoE server only, and no line matches a dialled link's peer.
 */
export const PPP_SECRETS_FILES = ['/etc/ppp/chap-secrets', '/etc/ppp/pap-secrets'] as const;

/** Names are letters and digits (spec §5); passwords likewise: anything else is not rendered. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const SECRET = /^[\x21\x23-\x5b\x5d-\x7e]{1,255}$/;

export interface PppSecretsInput {
  kind: PppServerKind;
  accounts: readonly PppAccount[];
  /**
   * "Remind expired users" (PPPoE): the addresses set aside for expired accounts. Absent, expired
   * accounts are left out (refused).
   */
  expiredPool?: readonly string[];
}

/**
 * The address each expired account dials into: the n-th expired account that can dial (in the
 * store's order) gets the pool's n-th address, so no two expired accounts share one; those
 * beyond the pool get none and are refused. The line names that one address, so pppd puts it in
 * place of the one pppoe-server offered (an address the line does not authorise), before IPCP:
 * an expired account can never come up with an ordinary address.
 */
export function expiredAddresses(accounts: readonly PppAccount[], pool: readonly string[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!pool) return out;
  for (const account of accounts) {
    if (!account.expired || account.secret === null) continue;
    const address = pool[out.size];
    if (address === undefined) break;
    out.set(account.username, address);
  }
  return out;
}

export function renderPppSecrets(servers: readonly PppSecretsInput[]): string {
  const lines = ['# Portico PPP servers: their local accounts (rendered, do not edit)'];
  for (const server of servers) {
    const expired = expiredAddresses(server.accounts, server.expiredPool);
    for (const account of server.accounts) {
      if (account.secret === null) continue;
      const address = account.expired ? expired.get(account.username) : '*';
      if (address === undefined) continue;
      assertInert(account.username, 'account name');
      assertInert(account.secret, 'account secret');
      if (!NAME.test(account.username) || !SECRET.test(account.secret)) throw new RenderValueError(`account ${JSON.stringify(account.username)} cannot be rendered`);
      lines.push(`"${account.username}" ${PPP_SERVER_NAME[server.kind]} "${account.secret}" ${address === '*' ? '*' : ipv4(address)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const LINE = new RegExp(
  `^"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}" (?:${PPP_SERVER_KINDS.map((kind) => PPP_SERVER_NAME[kind]).join('|')}) "[\\x21\\x23-\\x5b\\x5d-\\x7e]{1,255}" (?:\\*|(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)){3})$`,
);

/** The secrets file's checker: a comment, then one well-formed quoted line per account. */
export function checkPppSecrets(content: string): string[] {
  if (!content.endsWith('\n')) return ['file does not end with a newline'];
  const problems: string[] = [];
  content
    .slice(0, -1)
    .split('\n')
    .forEach((line, index) => {
      if (index === 0 ? !/^# [\x20-\x7e]+$/.test(line) : !LINE.test(line)) problems.push(`line ${index + 1}: malformed`);
    });
  return problems;
}
