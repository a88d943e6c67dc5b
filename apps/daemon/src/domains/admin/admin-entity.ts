import { BUILTIN_ADMIN, MSG, ROLES, type Privilege } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { failure } from '../../plugins/api-envelope.js';
import { removeInitialPasswordFile } from '../../plugins/initial-admin.js';
import type { CollectionStore, EntityRow, EntityRules } from '../../config/entity-store.js';
import type { EntityBinding } from '../../config/entity-routes.js';
import { EntityWriteRefused } from '../../config/entity-store.js';
import { isUniqueViolation, type Account } from '../../plugins/account-store.js';

const nameTaken = () => failure(MSG.invalid, { username: 'validation.nameExists' });

/** An account as the adminUser entity shows it; the password hash is never part of it. */
function toRow(account: Account): EntityRow {
  return {
    id: account.id,
    username: account.username,
    disabled: account.disabled,
    privilege: account.privilege,
    allowd_ips: account.allowdIps,
  };
}

function password(record: EntityRow): string | undefined {
  return typeof record.password === 'string' && record.password !== '' ? record.password : undefined;
}

/** admin_users behind the adminUser entity routes: passwords are hashed on the way in. */
function adminStore(ctx: AppContext): CollectionStore {
  const { accounts, passwords } = ctx;
  return {
    list: () => accounts.list().map(toRow),
    get: (id) => {
      const account = accounts.byId(id);
      return account ? toRow(account) : undefined;
    },
    count: () => accounts.count(),
    async insert(record) {
      const passwordHash = await passwords.hash(password(record)!);
      try {
        return toRow(
          accounts.insert({
            username: record.username as string,
            passwordHash,
            privilege: record.privilege as Privilege,
            disabled: record.disabled as boolean,
            allowdIps: record.allowd_ips as string[],
          }),
        );
      } catch (error) {
        // Two adds of one name raced past the check while hashing.
        if (isUniqueViolation(error)) throw new EntityWriteRefused(nameTaken());
        throw error;
      }
    },
    async update(id, record) {
      const fresh = password(record);
      const updated = accounts.update(id, {
        privilege: record.privilege as Privilege,
        disabled: record.disabled as boolean,
        allowdIps: record.allowd_ips as string[],
        ...(fresh ? { passwordHash: await passwords.hash(fresh) } : {}),
      });
      if (!updated) throw new EntityWriteRefused(failure(MSG.notFound));
      return toRow(updated);
    },
    remove: (ids) => accounts.remove(ids),
  };
}

/**
 * Rules of admin users (spec §3, §6): unique names; the built-in `admin` stays enabled with
 * privilege 0 and cannot be deleted; nobody deletes or disables their own account; an
 * account that is disabled, deleted or given a new password is signed out everywhere.
 */
function adminRules(ctx: AppContext): EntityRules {
  return {
    checkWrite({ mode, record, previous }, { auth }) {
      if (mode === 'add') {
        return ctx.accounts.byUsername(String(record.username)) ? nameTaken() : undefined;
      }
      if (previous?.username === BUILTIN_ADMIN && (record.disabled === true || record.privilege !== ROLES.manager)) {
        return failure('msg.builtinAdmin');
      }
      if (previous?.id === auth.account.id && record.disabled === true) return failure('msg.selfAccount');
      return undefined;
    },
    checkDelete(rows, { auth }) {
      if (rows.some((row) => row.username === BUILTIN_ADMIN)) return failure('msg.builtinAdmin');
      if (rows.some((row) => row.id === auth.account.id)) return failure('msg.selfAccount');
      return undefined;
    },
    afterWrite({ mode, record, saved }, { auth }) {
      if (mode !== 'update') return;
      const id = String(saved.id);
      const newPassword = password(record) !== undefined;
      if (saved.disabled === true || newPassword) {
        // The caller keeps the session it is using when it changes its own password.
        ctx.sessions.revokeUser(id, id === auth.account.id ? auth.session.idHash : undefined);
      }
      if (newPassword && saved.username === BUILTIN_ADMIN) {
        ctx.accounts.update(id, { mustChangePassword: false });
        removeInitialPasswordFile(ctx.settings.stateDir);
      }
    },
    afterDelete(rows) {
      for (const row of rows) ctx.sessions.revokeUser(String(row.id));
    },
  };
}

export function adminBinding(ctx: AppContext): EntityBinding {
  return { store: adminStore(ctx), rules: adminRules(ctx) };
}
