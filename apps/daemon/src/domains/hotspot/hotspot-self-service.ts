import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { fieldErrors, hotspotUser, LOCAL_USER_CONCURRENCY_DEFAULT, MSG } from '@portico/schema';
import type { LocalUser } from '../hotspot-config/hotspot-config-public.js';
import type { EntityRow } from '../../config/entity-store.js';
import { BYTES_PER_MB } from './hotspot-credentials.js';
import type { HotspotEngine } from './hotspot-engine.js';
import type { HotspotConfig } from './hotspot-types.js';
import { LOGIN_ERRORS } from './hotspot-types.js';
import { clientIp } from './hotspot-request.js';

/**
 * The local users' self-service API on the portal listener (/portal-api/user/*): sign in to
 * see one's account, register, change the password. A sign-in here is not a network login;
 * it is a short cookie session bound to the client's address. Failed passwords and taken
 * names count against the same guessing limit as portal logins, reserved before the check.
 */

/** The local-user operations self-service needs (hotspot-config/local-user-store.ts). */
export interface SelfServiceAccounts {
  verifyLocalUser(username: string, password: string): Promise<LocalUser | null>;
  byUsername(username: string): LocalUser | undefined;
  list(): LocalUser[];
  insert(record: EntityRow): Promise<LocalUser>;
  setPassword(username: string, password: string): Promise<boolean>;
}

export interface SelfServiceDeps {
  engine: HotspotEngine;
  accounts: () => SelfServiceAccounts;
  config: () => HotspotConfig;
  /** The client's MAC when it is on a hotspot network, else null. */
  macOf(ip: string): Promise<string | null>;
  now: () => number;
}

export const SELF_SERVICE_COOKIE = 'portico_portal_user';
/** Idle lifetime of a self-service sign-in. */
const SELF_SERVICE_IDLE_MS = 30 * 60_000;
/** Most sign-ins kept at once; the oldest go first. */
const MAX_SIGN_INS = 10_000;

const userFields = hotspotUser.schema.shape;
const signInBody = z.object({ username: z.string().min(1, { error: 'validation.required' }).max(64), password: z.string().min(1, { error: 'validation.required' }).max(128) });
const registerBody = z.object({ username: userFields.username, password: userFields.password, tel: userFields.tel.optional() });
const changeBody = z.object({ oldPassword: z.string().min(1, { error: 'validation.required' }).max(128), newPassword: userFields.password });

interface SignIn {
  username: string;
  ip: string;
  activeAt: number;
}

function fail(msg: string, errors?: Record<string, string>) {
  return errors ? { success: false, msg, errors } : { success: false, msg };
}

function cookieToken(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SELF_SERVICE_COOKIE) return value.join('=');
  }
  return undefined;
}

/** A name equal to another, or the prefix of a batch (the name followed by digits), is taken. */
export function nameTaken(name: string, users: readonly LocalUser[]): boolean {
  const wanted = name.toLowerCase();
  return users.some((user) => {
    const other = user.username.toLowerCase();
    return other === wanted || (other.startsWith(wanted) && /^\d+$/.test(other.slice(wanted.length)));
  });
}

export function registerSelfService(portal: FastifyInstance, deps: SelfServiceDeps): void {
  const { engine } = deps;
  const signIns = new Map<string, SignIn>();

  /** The guessing limit keys by MAC and address; a client off the hotspot networks has no MAC. */
  const guardKey = async (ip: string) => ({ ip, mac: (await deps.macOf(ip)) ?? `ip-${ip}` });

  const accountData = (user: LocalUser) => {
    const plan = user.model ? deps.config().plans.find((p) => p.name === user.model) : undefined;
    const usage = engine.accountUsage('local', user.username);
    return {
      username: user.username,
      plan: user.model,
      duetime: user.duetime,
      totalflow: user.totalflow > 0 ? user.totalflow * BYTES_PER_MB : (plan?.flowBytes ?? 0),
      usedflow: usage?.bytes ?? 0,
      usernum: user.usernum,
    };
  };

  const signedIn = (request: FastifyRequest): SignIn | undefined => {
    const token = cookieToken(request);
    const entry = token ? signIns.get(token) : undefined;
    if (!entry || !token) return undefined;
    const now = deps.now();
    // A sign-in is only good from the address it was made from, and only while in use.
    if (entry.ip !== clientIp(request)) return undefined;
    if (now - entry.activeAt > SELF_SERVICE_IDLE_MS) {
      signIns.delete(token);
      return undefined;
    }
    entry.activeAt = now;
    return entry;
  };

  const setCookie = (reply: FastifyReply, token: string, maxAge: number) =>
    reply.header('set-cookie', `${SELF_SERVICE_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}`);

  portal.post('/portal-api/user/login', async (request, reply) => {
    const parsed = signInBody.safeParse(request.body ?? {});
    if (!parsed.success) return fail(MSG.invalid, fieldErrors(parsed.error));
    const ip = clientIp(request);
    const reservation = engine.reserveGuess(await guardKey(ip));
    if (!reservation.ok) return fail(LOGIN_ERRORS.tooMany);
    let user: LocalUser | null = null;
    try {
      user = await deps.accounts().verifyLocalUser(parsed.data.username, parsed.data.password);
    } finally {
      reservation.release(user ? 'success' : 'failure');
    }
    if (!user) return fail(LOGIN_ERRORS.userOrPassword);
    const token = randomBytes(32).toString('base64url');
    if (signIns.size >= MAX_SIGN_INS) signIns.delete(signIns.keys().next().value!);
    signIns.set(token, { username: user.username, ip, activeAt: deps.now() });
    setCookie(reply, token, SELF_SERVICE_IDLE_MS / 1000);
    return { success: true, data: accountData(user) };
  });

  portal.get('/portal-api/user/me', async (request, reply) => {
    reply.header('cache-control', 'private, no-store');
    const entry = signedIn(request);
    const user = entry ? deps.accounts().byUsername(entry.username) : undefined;
    if (!user) return fail(MSG.unauthorized);
    return { success: true, data: accountData(user) };
  });

  portal.post('/portal-api/user/register', async (request) => {
    // Registration exists for the local-user sign-in method; without it there is nothing to use an account for.
    if (!deps.config().zones.some((zone) => zone.methods.includes('local'))) return fail(LOGIN_ERRORS.notConfigured);
    const parsed = registerBody.safeParse(request.body ?? {});
    if (!parsed.success) return fail(MSG.invalid, fieldErrors(parsed.error));
    const reservation = engine.reserveGuess(await guardKey(clientIp(request)));
    if (!reservation.ok) return fail(LOGIN_ERRORS.tooMany);
    const accounts = deps.accounts();
    // Probing for names counts like guessing passwords.
    const taken = nameTaken(parsed.data.username, accounts.list());
    reservation.release(taken ? 'failure' : 'uncounted');
    if (taken) return fail('portal.error.userExists');
    try {
      await accounts.insert({
        username: parsed.data.username,
        password: parsed.data.password,
        type: 'portal',
        model: '',
        usernum: LOCAL_USER_CONCURRENCY_DEFAULT,
        totalflow: 0,
        upspeed: 0,
        downspeed: 0,
        duetime: '',
        status: 'normal',
        sms: false,
        tel: parsed.data.tel ?? '',
        comment: '',
      });
    } catch (error) {
      // Two registrations of one name raced; the table's unique index refused the second.
      if (error instanceof Error && 'code' in error && String((error as { code: unknown }).code).startsWith('SQLITE_CONSTRAINT')) {
        return fail('portal.error.userExists');
      }
      throw error;
    }
    return { success: true, data: {} };
  });

  portal.post('/portal-api/user/cpwd', async (request) => {
    const entry = signedIn(request);
    if (!entry) return fail(MSG.unauthorized);
    const parsed = changeBody.safeParse(request.body ?? {});
    if (!parsed.success) return fail(MSG.invalid, fieldErrors(parsed.error));
    const reservation = engine.reserveGuess(await guardKey(entry.ip));
    if (!reservation.ok) return fail(LOGIN_ERRORS.tooMany);
    const accounts = deps.accounts();
    let known = false;
    try {
      known = (await accounts.verifyLocalUser(entry.username, parsed.data.oldPassword)) !== null;
    } finally {
      reservation.release(known ? 'success' : 'failure');
    }
    if (!known) return fail(MSG.invalid, { oldPassword: 'portal.error.password' });
    if (!(await accounts.setPassword(entry.username, parsed.data.newPassword))) return fail(LOGIN_ERRORS.system);
    return { success: true, data: {} };
  });

  portal.post('/portal-api/user/logout', async (request, reply) => {
    const token = cookieToken(request);
    if (token) signIns.delete(token);
    setCookie(reply, '', 0);
    return { success: true, data: {} };
  });
}
