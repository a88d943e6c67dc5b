import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MSG } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { envelope, failure, success } from '../../plugins/api-envelope.js';
import { readNetworkRows } from './network-domain.js';
import { registerIpsecLogRoute } from './network-ipsec-log.js';

export const RECONNECT_URL = '/api/network/reconnect';

export const RECONNECT_MSG = {
  /** A static WAN has no client to renew: its address is configured, not obtained. */
  static: 'msg.reconnectStatic',
  /** This device cannot run the WAN's client (PPPoE needs PPP support the system lacks). */
  unavailable: 'msg.reconnectUnavailable',
} as const;

const body = z.object({
  ifname: z.string({ error: 'validation.required' }).min(1, { error: 'validation.required' }).max(15, { error: 'validation.tooBig' }),
});

/**
 * `network/reconnect` (spec §7): a DHCP WAN discovers again, a PPPoE WAN redials. On `sim`
 * nothing runs, so the call only checks that the WAN exists and has a client to reconnect.
 * The network domain's runtime reads are registered here too (the IPsec client log).
 */
export function registerReconnectRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post(
    RECONNECT_URL,
    {
      config: { policy: { module: 'interface', effect: 'write' }, doc: { summary: 'Renew the DHCP lease or redial the PPPoE session of a WAN' } },
      schema: { body, response: { 200: envelope(z.object({ ifname: z.string() })) } },
    },
    async (request) => {
      const { ifname } = request.body as z.infer<typeof body>;
      const row = (readNetworkRows(ctx.db).networkInterface ?? []).find((candidate) => candidate.ifname === ifname);
      if (!row || row.role !== 'wan' || !row.enabled) return failure(MSG.invalid, { ifname: 'validation.network.wanOnly' });
      if (row.proto === 'static') return failure(RECONNECT_MSG.static);
      const reconnected = ctx.config.reconnect(ifname);
      return (await reconnected) ? success({ ifname }) : failure(RECONNECT_MSG.unavailable);
    },
  );
  // The network domain's other read of the system: the IPsec client's log.
  registerIpsecLogRoute(app, ctx);
}
