import { PRIVILEGES, type Privilege } from '@portico/schema';
import type { Account, AccountStore } from '../plugins/account-store.js';
import type { SessionStore } from '../plugins/session-store.js';
import { sameValue } from './config-diff.js';
import type { Actor, JournalChange, RawChange } from './config-types.js';

/**
 * An entity kept outside config_rows (so outside the snapshots): its writes are journalled
 * with public fields only and a revert to a revision does not restore it. When one of its
 * changes can cut the caller off, it is confirmed like any other and `undo` puts back what
 * the unconfirmed change altered.
 */
export interface JournalOnlyEntity {
  cutsCaller(change: RawChange, actor: Actor): boolean;
  /** Puts back what the journalled change altered; returns the change this makes, if any. */
  undo(change: JournalChange): RawChange | undefined;
}

/** Account fields that decide whether, from where and how far the account gets in. */
const ACCESS_FIELDS = ['allowd_ips', 'privilege', 'disabled'] as const;

function accessOf(account: Account): Record<string, unknown> {
  return { username: account.username, allowd_ips: account.allowdIps, privilege: account.privilege, disabled: account.disabled };
}

function isPrivilege(value: unknown): value is Privilege {
  return (PRIVILEGES as readonly unknown[]).includes(value);
}

/**
 * Admin accounts: changing the allowed addresses or the privilege of the account one is
 * signed in with can lock one out (spec "admin allowed IPs"), so such a change waits for its
 * confirmation; unconfirmed, the account's access fields are put back. Passwords are never
 * journalled, so they are never put back.
 */
export function accountAccess(accounts: AccountStore, sessions: SessionStore): JournalOnlyEntity {
  return {
    cutsCaller(change, actor) {
      if (change.action !== 'update' || actor.accountId === undefined || change.id !== actor.accountId) return false;
      return ACCESS_FIELDS.some((field) => change.after?.[field] !== undefined && !sameValue(change.before?.[field], change.after[field]));
    },
    undo(change) {
      const current = change.action === 'update' && change.before ? accounts.byId(change.id) : undefined;
      if (!current || !change.before) return undefined;
      const { allowd_ips: allowdIps, privilege, disabled } = change.before;
      const restored = accounts.update(change.id, {
        ...(Array.isArray(allowdIps) && allowdIps.every((ip) => typeof ip === 'string') ? { allowdIps: allowdIps as string[] } : {}),
        ...(isPrivilege(privilege) ? { privilege } : {}),
        ...(typeof disabled === 'boolean' ? { disabled } : {}),
      })!;
      if (restored.disabled) sessions.revokeUser(change.id);
      return { entity: change.entity, id: change.id, action: 'update', before: accessOf(current), after: accessOf(restored) };
    },
  };
}
