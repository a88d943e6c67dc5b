import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MSG } from '@portico/schema';
import type { NeighbourLookup } from '../hotspot-neighbours.js';
import type { PortalZone } from '../hotspot-portal.js';
import { LOGIN_ERRORS } from '../hotspot-types.js';
import type { SmsSignIn } from './sms-signin.js';
import { clientIp } from '../hotspot-request.js';

const codeBody = z.object({ phone: z.string().min(1).max(20) });

/**
 * What a guest is told when no code was sent: the portal shows only its own messages, and a
 * platform's reason (credentials, template approval) is for the administrator's SMS log.
 */
const PORTAL_MESSAGE: Record<string, string> = {
  'msg.sms.disabled': LOGIN_ERRORS.notConfigured,
  'msg.sms.code.notSetUp': LOGIN_ERRORS.notConfigured,
  'msg.sms.send.invalidPhone': 'portal.error.phone',
  'msg.sms.code.invalidPhone': 'portal.error.phone',
  'msg.sms.code.cooldown': 'portal.error.smsCooldown',
  'msg.sms.code.invalidMac': LOGIN_ERRORS.system,
  'msg.sms.send.rateLimited': LOGIN_ERRORS.tooMany,
};

/**
 * POST /portal-api/sms/code on the portal listener: a client of a zone that signs in by SMS
 * asks for a code to its phone; it then signs in with POST /portal-api/login (method sms).
 * The client is its source address and the MAC the neighbour table gives, as for every login.
 */
export function registerSmsPortal(portal: FastifyInstance, deps: { sms: SmsSignIn; zoneFor(ip: string): PortalZone | null; neighbours: NeighbourLookup }): void {
  portal.post('/portal-api/sms/code', async (request) => {
    const body = codeBody.safeParse(request.body ?? {});
    if (!body.success) return { success: false, msg: MSG.invalid, errors: { phone: 'portal.validation.required' } };
    const ip = clientIp(request);
    const zone = deps.zoneFor(ip);
    if (!zone || !zone.zone.methods.includes('sms')) return { success: false, msg: LOGIN_ERRORS.notConfigured };
    const mac = await deps.neighbours(ip);
    if (!mac) return { success: false, msg: LOGIN_ERRORS.system };
    const sent = await deps.sms.sendCode(body.data.phone, mac);
    if (!sent.ok) {
      const msg = PORTAL_MESSAGE[sent.error] ?? 'portal.error.smsSend';
      return { success: false, msg, ...(sent.resendSeconds ? { data: { resendSeconds: sent.resendSeconds } } : {}) };
    }
    return { success: true, data: { expiresAt: sent.expiresAt, resendSeconds: sent.resendSeconds } };
  });
}
