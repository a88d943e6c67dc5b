import { dueTimeEnd } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { localUsers, type LocalUser } from '../hotspot-config/hotspot-config-public.js';
import { voucherStore } from '../voucher/voucher-public.js';
import type { RedeemResult } from '../voucher/voucher-public.js';
import type { CredentialResult, HotspotCredentials } from './hotspot-engine.js';
import { LOGIN_ERRORS } from './hotspot-types.js';
import { smsSignIn } from './sms/sms-signin.js';

/** Local users' traffic totals are kept in MB; the engine counts bytes. */
export const BYTES_PER_MB = 1_000_000;

/** Account types that may sign in on the web portal (spec §3 Local user type). */
const PORTAL_USER_TYPES: ReadonlySet<LocalUser['type']> = new Set(['portal', 'voucher']);

/** What a verified local account grants: its own limits, else its plan's (engine). */
export function localUserGrant(user: LocalUser, now: number): CredentialResult {
  if (!PORTAL_USER_TYPES.has(user.type)) return { ok: false, error: LOGIN_ERRORS.userOrPassword };
  const due = user.duetime ? dueTimeEnd(user.duetime) : null;
  if (user.status === 'expired' || (due !== null && due <= now)) return { ok: false, error: LOGIN_ERRORS.expired };
  return {
    ok: true,
    grant: {
      account: user.username,
      plan: user.model || undefined,
      expiresAt: due,
      flowBytes: user.totalflow > 0 ? user.totalflow * BYTES_PER_MB : null,
      usernum: user.usernum,
      upKbps: user.upspeed,
      downKbps: user.downspeed,
    },
  };
}

/**
 * What a voucher redemption grants. The session is keyed by the voucher's id, never its code,
 * so no code is written to the saved state.
 */
export function voucherGrant(result: RedeemResult): CredentialResult {
  if (!result.ok) {
    const error = { code: LOGIN_ERRORS.code, expired: LOGIN_ERRORS.expired, onlineLimit: LOGIN_ERRORS.onlineLimit }[result.reason];
    return { ok: false, error };
  }
  const { voucher } = result;
  return {
    ok: true,
    grant: {
      account: voucher.id,
      plan: voucher.plan || undefined,
      expiresAt: voucher.expiresAt,
      flowBytes: null,
      usernum: voucher.usernum,
      upKbps: 0,
      downKbps: 0,
    },
  };
}

/**
 * The engine's credential checks against the device's local users
 * (hotspot-config/local-user-store.ts) and vouchers (voucher/voucher-store.ts), and SMS codes
 * (sms/). Accounts on outside servers (RADIUS, LDAP) are the engine's outside authenticators.
 */
export function deviceCredentials(ctx: AppContext): HotspotCredentials {
  return {
    verifySmsCode: (phone, code, device) => smsSignIn(ctx).verify(phone, code, device.mac),
    async verifyLocalUser(username, password) {
      const user = await localUsers(ctx).verifyLocalUser(username, password);
      return user ? localUserGrant(user, ctx.now()) : { ok: false, error: LOGIN_ERRORS.userOrPassword };
    },
    async verifyLocalUserChap(username, matches) {
      const verdict = localUsers(ctx).verifyLocalUserChap(username, matches);
      if (verdict.ok) return localUserGrant(verdict.user, ctx.now());
      if (verdict.reason === 'wrong') return { ok: false, error: LOGIN_ERRORS.userOrPassword };
      // The administrator's cue, in the auth log: this account's password must be set again.
      ctx.logs.append('auth', { level: 'warning', origin: 'portal', key: 'logs.auth.chapNeedsPassword', values: { account: verdict.username } });
      return { ok: false, error: LOGIN_ERRORS.needPassword };
    },
    async redeemVoucher(code, device) {
      return voucherGrant(voucherStore(ctx).redeemVoucher(code, device.mac, ctx.now()));
    },
  };
}
