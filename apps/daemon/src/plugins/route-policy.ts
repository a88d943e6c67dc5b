import type { RoleName, RouteEffect } from '@portico/schema';
import type { Account } from './account-store.js';
import type { SessionRecord } from './session-store.js';
import type { RouteSchema } from './deferred-schema.js';

/**
 * What a route needs from its caller. Every route declares either a policy or `public: true`;
 * plugins/security-guard.ts enforces both for every route in one place.
 */
export interface RoutePolicy {
  /** Page module(s) the route belongs to; with several, the widest permission counts. */
  module: string | readonly string[];
  effect: RouteEffect;
  /** Effects of individual body actions of a POST route, e.g. `get` only reads. */
  actionEffects?: Readonly<Record<string, RouteEffect>>;
  /**
   * One route serving several pages' data (e.g. every log through `sysconf/log`): the page
   * whose permission counts is named by a field of the query (GET) or the body (POST). A value
   * not listed falls back to `module`, and the route's validation refuses it.
   */
  pageBy?: { field: string; pages: Readonly<Record<string, string>> };
  /** The effect of a WebSocket upgrade of the route (`config.websocket`), when it differs from `effect`. */
  upgradeEffect?: RouteEffect;
  /** Answered while the account must still change its password. */
  duringPasswordChange?: boolean;
}

/** The signed-in caller of a request. */
export interface RequestAuth {
  session: SessionRecord;
  account: Account;
  role: RoleName;
}

/** Schemas kept for the OpenAPI document of routes that validate in their handler. */
export interface RouteDoc {
  summary?: string;
  body?: RouteSchema;
  querystring?: RouteSchema;
  response?: RouteSchema;
  /** Entity path when the route is derived from an entity declaration. */
  entity?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    policy?: RoutePolicy;
    /** Reachable without a session. */
    public?: boolean;
    /** For public routes: use the caller's session when there is a valid one. */
    session?: 'optional';
    /**
     * A WebSocket route (plugins/websocket-upgrade.ts): an upgrade reaches it through the same
     * guard as any request, and must also carry the session's CSRF token (as a subprotocol).
     */
    websocket?: boolean;
    doc?: RouteDoc;
  }
  interface FastifyRequest {
    auth: RequestAuth | null;
  }
}

/** One registered route, as the security guard and the OpenAPI document see it. */
export interface RouteEntry {
  method: string;
  url: string;
  policy?: RoutePolicy;
  public: boolean;
  schema?: { body?: unknown; querystring?: unknown; response?: Record<string, unknown> };
  doc?: RouteDoc;
}
