import type { FastifyInstance } from 'fastify';
import { fieldErrors, MSG, openvpnClientAddBody, openvpnClientNameBody, openvpnClientSchema, openvpnSessionSchema } from '@portico/schema';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { OPENVPN_MSG, type OpenvpnClients } from './vpn-server-clients.js';
import { ManagementUnavailable, managementKill, managementReload, managementSessions } from './vpn-server-management.js';
import { openvpnManagementSocket, renderOpenvpnProfile } from './vpn-server-openvpn.js';
import type { OpenvpnPki } from './vpn-server-pki.js';
import { openvpnSettingsOf } from './vpn-server-ruleset.js';

const MODULE = 'openvpnservice';
const clientAction = z.object({ action: z.enum(['add', 'revoke', 'delete']) });
const sessionAction = z.object({ action: z.literal('kick'), name: z.string() });

/**
 * The OpenVPN server's own routes beside its settings (the generic `auth/openvpn`):
 * - `auth/openvpn/clients`: client certificates by name; add, revoke (the CRL is rewritten
 *   and a connected session of that name cut off at once), delete;
 * - `auth/openvpn/exportconf`: a client's ready `.ovpn` profile (spec §2 /openvpnservice/exportconf);
 * - `auth/openvpn/server`: "obtain server key and certificate again";
 * - `auth/openvpn/status`: running or STOPPED, and the online sessions, with kick-off.
 */
export function registerOpenvpnRoutes(app: FastifyInstance, ctx: AppContext, pki: OpenvpnPki, clients: OpenvpnClients): void {
  const socket = openvpnManagementSocket(ctx.settings.stateDir);
  const settings = () => openvpnSettingsOf(ctx.config.journal.capture());
  // A factory reset removes the PKI under the running daemon: what is missing is made again.
  const ensurePki = () => pki.ensure(clients.revokedEntries());
  /** Cuts the sessions of a name off when the server runs; a stopped server has none. */
  async function cutOff(name: string, then: 'HALT' | 'RESTART' = 'HALT'): Promise<void> {
    await managementKill(socket, name, then).catch((error: unknown) => {
      if (!(error instanceof ManagementUnavailable)) throw error;
    });
  }

  app.get('/api/auth/openvpn/clients', { config: { policy: { module: MODULE, effect: 'read' }, doc: { summary: 'OpenVPN client certificates', response: z.object({ items: z.array(openvpnClientSchema) }) } } }, async () =>
    success({ items: clients.list(), total: clients.list().length }),
  );

  app.post('/api/auth/openvpn/clients', { config: { policy: { module: MODULE, effect: 'write' }, doc: { summary: 'action add (name, remark), revoke or delete (name)' } } }, async (request) => {
    const action = clientAction.safeParse(request.body ?? {});
    if (!action.success) return failure(MSG.invalid, fieldErrors(action.error));
    await ensurePki();
    if (action.data.action === 'add') {
      const body = openvpnClientAddBody.safeParse(request.body);
      if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
      const outcome = await clients.add(body.data.name, body.data.remark);
      return outcome.ok ? success({ items: clients.list() }) : failure(outcome.msg, { name: outcome.msg });
    }
    const body = openvpnClientNameBody.safeParse(request.body);
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    const outcome = action.data.action === 'revoke' ? await clients.revoke(body.data.name) : await clients.remove(body.data.name);
    if (!outcome.ok) return failure(outcome.msg);
    await cutOff(body.data.name);
    return success({ items: clients.list(), msg: action.data.action === 'revoke' ? OPENVPN_MSG.revoked : undefined });
  });

  app.post('/api/auth/openvpn/exportconf', { config: { policy: { module: MODULE, effect: 'write' }, doc: { summary: "A client's .ovpn profile (its private key inside)" } } }, async (request, reply) => {
    const body = openvpnClientNameBody.safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    const row = clients.get(body.data.name);
    if (!row) return failure(OPENVPN_MSG.notFound);
    if (row.revoked !== null) return failure(OPENVPN_MSG.alreadyRevoked);
    const server = settings();
    if (server.host === '') return failure(OPENVPN_MSG.noHost, { host: 'validation.required' });
    await ensurePki();
    const profile = renderOpenvpnProfile(server, { name: row.name, ca: await pki.caCertificate(), certificate: row.certificate, key: await pki.clientKey(row.name) });
    return reply
      .header('content-type', 'application/x-openvpn-profile; charset=utf-8')
      .header('content-disposition', `attachment; filename="${row.name}.ovpn"`)
      .header('cache-control', 'no-store')
      .send(profile);
  });

  app.post('/api/auth/openvpn/server', { config: { policy: { module: MODULE, effect: 'write' }, doc: { summary: 'action reissue: a new server key and certificate' } } }, async (request) => {
    const body = z.object({ action: z.literal('reissue') }).safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    await ensurePki();
    await pki.issueServer();
    // The running server reads its files again; new handshakes get the new certificate.
    await managementReload(socket).catch((error: unknown) => {
      if (!(error instanceof ManagementUnavailable)) throw error;
    });
    return success({ msg: OPENVPN_MSG.serverReissued });
  });

  // The CA page (/system/caconfiguration): the authority, its certificate, a new one.
  app.get('/api/auth/openvpn/ca', { config: { policy: { module: 'caconfiguration', effect: 'read' }, doc: { summary: 'The OpenVPN certificate authority' } } }, async () => {
    await ensurePki();
    return success({ ...(await pki.authorityInfo()), certificate: await pki.caCertificate() });
  });
  app.post('/api/auth/openvpn/ca', { config: { policy: { module: 'caconfiguration', effect: 'write' }, doc: { summary: 'action regenerate: a new CA; every client certificate issued again' } } }, async (request) => {
    const body = z.object({ action: z.literal('regenerate') }).safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    await pki.regenerateAuthority();
    await clients.reissueAll();
    // Sessions of the old authority end; the server takes the new files.
    await managementReload(socket).catch((error: unknown) => {
      if (!(error instanceof ManagementUnavailable)) throw error;
    });
    return success({ ...(await pki.authorityInfo()), msg: OPENVPN_MSG.caRegenerated });
  });

  // Client key pairs (/system/clientrsa, spec §7 `rsa`): the clients of the device's PKI.
  app.get('/api/rsa', { config: { policy: { module: 'clientrsa', effect: 'read' }, doc: { summary: 'Client key pairs of the device PKI' } } }, async () =>
    success({ items: clients.list(), total: clients.list().length }),
  );
  app.post('/api/rsa', { config: { policy: { module: 'clientrsa', effect: 'write', actionEffects: { get: 'read' } }, doc: { summary: 'action get: the client key pairs' } } }, async (request) => {
    const body = z.object({ action: z.literal('get') }).safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    return success({ items: clients.list(), total: clients.list().length });
  });

  app.get('/api/auth/openvpn/status', { config: { policy: { module: MODULE, effect: 'read' }, doc: { summary: 'Running or stopped, and the online sessions', response: z.object({ running: z.boolean(), sessions: z.array(openvpnSessionSchema) }) } } }, async () => {
    try {
      return success({ running: true, sessions: await managementSessions(socket) });
    } catch (error) {
      if (error instanceof ManagementUnavailable) return success({ running: false, sessions: [] });
      throw error;
    }
  });

  app.post('/api/auth/openvpn/status', { config: { policy: { module: MODULE, effect: 'write' }, doc: { summary: 'action kick with name: disconnect that client' } } }, async (request) => {
    const body = sessionAction.safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    const name = openvpnClientNameBody.safeParse({ name: body.data.name });
    if (!name.success) return failure(MSG.invalid, fieldErrors(name.error));
    await cutOff(name.data.name, 'RESTART');
    return success();
  });
}
