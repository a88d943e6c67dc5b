import type { FastifyRequest } from 'fastify';
import type { Actor, ConfirmTicket } from './config-types.js';

/** Who writes: the signed-in account and the address the request came from. */
export function actorOf(request: FastifyRequest): Actor {
  const account = request.auth?.account;
  return { user: account?.username ?? 'unknown', accountId: account?.id, sourceIp: request.ip };
}

/** The reply data of a write, with the confirmation ticket when the change waits for one. */
export function withConfirm<T extends object>(data: T, outcome: { confirm?: ConfirmTicket }): T & { confirm?: ConfirmTicket } {
  return outcome.confirm ? { ...data, confirm: outcome.confirm } : data;
}

/** Reply data of a write that returns no record (delete): only the ticket, if any. */
export function confirmData(outcome: { confirm?: ConfirmTicket }): { confirm: ConfirmTicket } | undefined {
  return outcome.confirm ? { confirm: outcome.confirm } : undefined;
}
