import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  accessIpAllows,
  BUILTIN_ADMIN,
  CAPABILITIES,
  MSG,
  passwordField,
  PASSWORD_MISMATCH,
  PRIVILEGES,
  roleOf,
  ROLES,
} from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { envelope, failure, success } from '../../plugins/api-envelope.js';
import { clearSessionCookie, LANG_COOKIE, readSessionCookie, setSessionCookie } from '../../plugins/session-cookie.js';
import type { Account } from '../../plugins/account-store.js';
import { removeInitialPasswordFile } from '../../plugins/initial-admin.js';
import { LANGUAGES, requestLanguage, toLanguage } from './lang-codes.js';
import { LoginLimiter } from '../../plugins/login-limiter.js';
import { hashSessionId } from '../../plugins/session-store.js';

/** Longest text accepted in a sign-in field; longer input is wrong without being hashed. */
const LOGIN_FIELD_MAX = 256;

const loginBody = z.object({
  username: z.string().max(LOGIN_FIELD_MAX).optional(),
  password: z.string().max(LOGIN_FIELD_MAX).optional(),
});

const sessionInfo = z.object({
  username: z.string(),
  privilege: z.union(PRIVILEGES.map((p) => z.literal(p))),
  role: z.enum(Object.keys(ROLES) as [keyof typeof ROLES, ...(keyof typeof ROLES)[]]),
  mustChangePassword: z.boolean(),
  csrf: z.string(),
  lang: z.enum(LANGUAGES),
});

const changePasswordBody = z
  .object({
    oldpassword: z.string({ error: 'validation.required' }).min(1, { error: 'validation.required' }).max(LOGIN_FIELD_MAX),
    password: passwordField(),
    confirm: z.string({ error: 'validation.required' }),
  })
  .superRefine((value, ctx) => {
    if (value.password !== value.confirm) ctx.addIssue({ code: 'custom', path: ['confirm'], message: PASSWORD_MISMATCH });
  });

const changeLangBody = z.object({ lang: z.string({ error: 'validation.required' }) });

const langInfo = z.object({ lang: z.enum(LANGUAGES), languages: z.array(z.enum(LANGUAGES)), hidden: z.boolean() });

/** One year: the language choice outlives sessions. */
const LANG_COOKIE_SECONDS = 365 * 86400;

export function registerAuthRoutes(root: FastifyInstance, ctx: AppContext): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { accounts, sessions, limiter, passwords } = ctx;
  let decoyHash: Promise<string> | undefined;
  // Unknown accounts are checked against a throwaway hash so timing does not tell names apart.
  const decoy = () => (decoyHash ??= passwords.hash(randomBytes(16).toString('hex')));

  function profile(request: FastifyRequest, account: Account, csrf: string) {
    return {
      username: account.username,
      privilege: account.privilege,
      role: roleOf(account.privilege),
      mustChangePassword: account.mustChangePassword,
      csrf,
      lang: requestLanguage(request, account.lang),
    };
  }

  function startSession(request: FastifyRequest, reply: FastifyReply, account: Account): string {
    const { id, csrf } = sessions.create(account.id, request.ip, ctx.now());
    setSessionCookie(request, reply, id);
    return csrf;
  }

  app.post(
    '/api/login',
    {
      config: { public: true },
      schema: { body: loginBody, response: { 200: envelope(sessionInfo) } },
    },
    async (request, reply) => {
      const username = request.body.username?.trim() ?? '';
      const password = request.body.password ?? '';
      if (username === '' || password === '') return failure(MSG.loginRequired);

      const reservation = limiter.reserve(LoginLimiter.key(username, request.ip));
      if (!reservation.ok) return failure(MSG.loginLocked, undefined, { retryAfter: reservation.retryAfter });

      let account: Account | undefined;
      let valid = false;
      let lockedFor = 0;
      try {
        account = accounts.byUsername(username);
        valid = await passwords.verify(password, account?.passwordHash ?? (await decoy()));
      } finally {
        // Disabled accounts and foreign addresses fail exactly like a wrong password.
        valid = valid && account !== undefined && !account.disabled && accessIpAllows(account.allowdIps, request.ip);
        lockedFor = reservation.release(valid ? 'success' : 'failure');
      }
      if (!valid || !account) {
        // The auth log (Logs → auth): every console sign-in, the name as typed (shown escaped).
        ctx.logs.append('auth', { level: 'warning', origin: 'console', key: lockedFor > 0 ? 'logs.auth.adminLocked' : 'logs.auth.adminFailed', values: { user: username, address: request.ip } });
        return lockedFor > 0 ? failure(MSG.loginLocked, undefined, { retryAfter: lockedFor }) : failure(MSG.loginWrong);
      }
      ctx.logs.append('auth', { level: 'info', origin: 'console', key: 'logs.auth.adminSignedIn', values: { user: account.username, address: request.ip } });

      // A session id presented before sign-in is never reused.
      const previous = readSessionCookie(request);
      if (previous) sessions.revoke(hashSessionId(previous));
      if (!account.lang) {
        const chosen = toLanguage(request.cookies[LANG_COOKIE]);
        if (chosen) account = accounts.update(account.id, { lang: chosen }) ?? account;
      }
      const csrf = startSession(request, reply, account);
      return success(profile(request, account, csrf));
    },
  );

  const sessionRead = { module: 'session', effect: 'read', duringPasswordChange: true } as const;
  const sessionWrite = { module: 'session', effect: 'write', duringPasswordChange: true } as const;

  app.get(
    '/api/islogin',
    {
      config: { policy: sessionRead },
      schema: {
        response: { 200: envelope(sessionInfo.extend({ capabilities: z.array(z.enum(CAPABILITIES)) })) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      return success({
        ...profile(request, auth.account, auth.session.csrf),
        capabilities: CAPABILITIES.filter((c) => ctx.settings.capabilities.has(c)),
      });
    },
  );

  const logout = async (request: FastifyRequest, reply: FastifyReply) => {
    sessions.revoke(request.auth!.session.idHash);
    clearSessionCookie(request, reply);
    return success();
  };
  app.get('/api/logout', { config: { policy: sessionRead }, schema: { response: { 200: envelope() } } }, logout);
  app.post('/api/logout', { config: { policy: sessionWrite }, schema: { response: { 200: envelope() } } }, logout);

  app.post(
    '/api/changepwd',
    {
      config: { policy: sessionWrite },
      schema: { body: changePasswordBody, response: { 200: envelope(z.object({ csrf: z.string() })) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const { oldpassword, password } = request.body;
      // Guessing the current password through this form is limited like sign-in.
      const reservation = limiter.reserve(LoginLimiter.key(auth.account.username, request.ip));
      if (!reservation.ok) return failure(MSG.loginLocked, undefined, { retryAfter: reservation.retryAfter });
      let correct = false;
      try {
        correct = await passwords.verify(oldpassword, auth.account.passwordHash);
      } finally {
        reservation.release(correct ? 'success' : 'failure');
      }
      if (!correct) return failure(MSG.invalid, { oldpassword: 'validation.password.wrong' });
      if (password === oldpassword) return failure(MSG.invalid, { password: 'validation.password.same' });

      const passwordHash = await passwords.hash(password);
      const account = accounts.update(auth.account.id, { passwordHash, mustChangePassword: false });
      if (!account) return (reply as FastifyReply).code(401).send(failure(MSG.unauthorized));
      // Every other browser signed in with the old password is signed out.
      sessions.revokeUser(account.id);
      const csrf = startSession(request, reply, account);
      if (account.username === BUILTIN_ADMIN) removeInitialPasswordFile(ctx.settings.stateDir);
      return success({ csrf });
    },
  );

  const langReply = (request: FastifyRequest) => ({
    lang: requestLanguage(request, request.auth?.account.lang),
    languages: [...LANGUAGES],
    hidden: ctx.settings.capabilities.has('hidden_language'),
  });

  app.get(
    '/api/changelang',
    { config: { public: true, session: 'optional' }, schema: { response: { 200: envelope(langInfo) } } },
    async (request) => success(langReply(request)),
  );

  app.post(
    '/api/changelang',
    {
      config: { public: true, session: 'optional' },
      schema: { body: changeLangBody, response: { 200: envelope(langInfo) } },
    },
    async (request, reply) => {
      const lang = toLanguage(request.body.lang);
      if (!lang) return failure(MSG.invalid, { lang: 'validation.option' });
      reply.setCookie(LANG_COOKIE, lang, {
        path: '/',
        sameSite: 'lax',
        maxAge: LANG_COOKIE_SECONDS,
        secure: request.protocol === 'https',
      });
      if (request.auth) {
        const account = accounts.update(request.auth.account.id, { lang });
        if (account) request.auth.account = account;
      }
      request.cookies[LANG_COOKIE] = lang;
      return success(langReply(request));
    },
  );
}
