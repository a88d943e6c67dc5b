import { hotspotLdap, type HotspotLdap } from '@portico/schema';
import type { AppContext } from '../../../app-context.js';
import { configRowSingleton } from '../../../config/entity-store.js';
import type { CredentialResult, OutsideAuthenticator } from '../hotspot-engine.js';
import { LOGIN_ERRORS } from '../hotspot-types.js';
import { ldapAuthenticate, type LdapOutcome } from './ldap-auth.js';

/** The stored LDAP settings (the singleton's row), with their defaults. */
export function ldapSettings(ctx: Pick<AppContext, 'db' | 'now'>): HotspotLdap {
  return hotspotLdap.schema.parse(configRowSingleton(ctx.db, hotspotLdap.name, ctx.now).read() ?? {});
}

/** The portal's message for each outcome (spec §8 login errors and "connect failed"). */
export function ldapLoginError(outcome: Exclude<LdapOutcome, { ok: true }>): CredentialResult & { ok: false } {
  switch (outcome.error) {
    case 'wrongPassword':
      return { ok: false, error: LOGIN_ERRORS.password };
    case 'invalidUser':
    case 'unknownUser':
    case 'refused':
      return { ok: false, error: LOGIN_ERRORS.userOrPassword };
    case 'unreachable':
      return { ok: false, error: LOGIN_ERRORS.connectFailed };
    case 'misconfigured':
      return { ok: false, error: LOGIN_ERRORS.system };
  }
}

/**
 * The LDAP zones' authenticator (the engine's outside-authenticator extension point, under
 * `outside.ldap`): the directory checks the name and password with the saved settings, the
 * zone grants the access (its plan or session time). Why a try failed beyond what the guest is
 * told (a refused service account, a TLS error) goes to `report` for the administrator.
 */
export function ldapAuthenticator(ctx: Pick<AppContext, 'db' | 'now'>, report: (what: string, detail: string) => void = () => undefined): OutsideAuthenticator {
  return {
    async authenticate({ username, password, zoneGrant }): Promise<CredentialResult> {
      const settings = ldapSettings(ctx);
      if (!settings.enabled) return { ok: false, error: LOGIN_ERRORS.notConfigured };
      const outcome = await ldapAuthenticate(settings, username, password);
      if (outcome.ok) return { ok: true, grant: { ...zoneGrant(), account: username } };
      if (outcome.detail) report(`ldap sign-in: ${outcome.error}`, outcome.detail);
      return ldapLoginError(outcome);
    },
  };
}
