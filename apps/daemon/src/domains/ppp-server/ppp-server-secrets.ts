import { PPP_SERVER_KINDS, type PppServerKind } from '@portico/schema';
import type { PppAccount } from '../hotspot-config/hotspot-config-public.js';
import { assertInert } from '../../engine/engine-types.js';
import { RenderValueError } from '../network/network-public.js';
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
  /** Expired accounts are left out (refused): the expiry notice is not served to PPP sessions. */
  accounts: readonly PppAccount[];
}

export function renderPppSecrets(servers: readonly PppSecretsInput[]): string {
  const lines = ['# Portico PPP servers: their local accounts (rendered, do not edit)'];
  for (const server of servers) {
    for (const account of server.accounts) {
      if (account.secret === null || account.expired) continue;
      assertInert(account.username, 'account name');
      assertInert(account.secret, 'account secret');
      if (!NAME.test(account.username) || !SECRET.test(account.secret)) throw new RenderValueError(`account ${JSON.stringify(account.username)} cannot be rendered`);
      lines.push(`"${account.username}" ${PPP_SERVER_NAME[server.kind]} "${account.secret}" *`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const LINE = new RegExp(`^"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}" (?:${PPP_SERVER_KINDS.map((kind) => PPP_SERVER_NAME[kind]).join('|')}) "[\\x21\\x23-\\x5b\\x5d-\\x7e]{1,255}" \\*$`);

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
