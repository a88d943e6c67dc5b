import type { FastifyInstance } from 'fastify';
import { fieldErrors, ipsecStatusSchema, MSG, type IpsecStatus } from '@portico/schema';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import type { CommandRunner } from '../../engine/command-runner.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { ikeViciSocket, isIpsecClientConnection } from '../network/network-public.js';
import { ipsecServerActive } from './vpn-server-ipsec-domain.js';
import { readIpsecServerLog } from './vpn-server-ipsec-runtime.js';
import { parseListSas, refusalReader } from './vpn-server-ipsec-status.js';

const MODULE = 'ipsecservice';
/** A peer refused for its key or identity reads as the spec's §8 "Auth Failed". */
export const IPSEC_MSG = { refused: 'msg.authFailed' } as const;
const kickBody = z.object({ action: z.literal('kick'), uniqueId: z.string().regex(/^\d{1,10}$/, { error: 'validation.option' }) });
/** A log line the daemon wrote: its ISO stamp, then charon's text. */
const STAMPED = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,3})?Z) (.*)$/;

/** A line of the shared log about one of the network's IPsec clients (`<vpnc-hq|3>`), not the server. */
const CLIENT_LINE = /\[[A-Z]{3}\] <([A-Za-z0-9_-]{1,64})\|/;

/**
 * The server's status: running while it has something for charon and charon answers on its
 * vici socket; its IKE SAs (not the network's clients', which share the charon); its refusals
 * from the shared log.
 */
export async function readIpsecStatus(root: string, run: CommandRunner, now: number, active: boolean): Promise<IpsecStatus> {
  const result = await run(['swanctl', '--list-sas', '--noblock', '--uri', `unix://${ikeViciSocket(root)}`], { timeoutMs: 10_000 });
  const running = active && result.exitCode === 0;
  const reader = refusalReader(IPSEC_MSG.refused);
  for (const line of (await readIpsecServerLog(root, 2000)).lines) {
    const stamped = STAMPED.exec(line);
    const client = stamped && CLIENT_LINE.exec(stamped[2]!)?.[1];
    if (stamped && !(client && isIpsecClientConnection(client))) reader.line(stamped[2]!, Date.parse(stamped[1]!));
  }
  const sas = running ? parseListSas(result.stdout, now).filter((sa) => !isIpsecClientConnection(sa.name)) : [];
  return { running, sas, refusals: reader.refusals() };
}

/**
 * OpenWrt: the system charon, on its default vici socket, carries the network's clients
 * (`vpnc-…`) beside the server's connections (vpn-server-ipsec-openwrt.ts). charon logs to
 * syslog there (logread), so no refusal is read here.
 */
export async function readOpenwrtIpsecStatus(run: CommandRunner, now: number, active: boolean): Promise<IpsecStatus> {
  const result = await run(['swanctl', '--list-sas', '--noblock'], { timeoutMs: 10_000 });
  const running = active && result.exitCode === 0;
  const sas = running ? parseListSas(result.stdout, now).filter((sa) => !isIpsecClientConnection(sa.name)) : [];
  return { running, sas, refusals: [] };
}

/**
 * The IPsec server's own routes beside its peers (the generic `auth/ipsec`):
 * - `auth/ipsec/status`: running or STOPPED (charon answers on its vici socket), the IKE SAs
 *   with peer, address, since and bytes, and the latest refusals (wrong key or identity) from
 *   its log; POST `kick` with an SA's unique id terminates that IKE SA;
 * - `auth/ipsec/log`: the newest lines of charon's log.
 * On the sim driver nothing negotiates: the server reads as stopped.
 */
export function registerIpsecRoutes(app: FastifyInstance, ctx: AppContext, run: CommandRunner): void {
  const root = ctx.settings.systemRoot;
  const uri = `unix://${ikeViciSocket(root)}`;
  const live = ctx.settings.driver === 'linux';
  const openwrt = ctx.settings.driver === 'openwrt';

  app.get('/api/auth/ipsec/status', { config: { policy: { module: MODULE, effect: 'read' }, doc: { summary: 'IPsec server: running or stopped, IKE SAs, refusals', response: ipsecStatusSchema } } }, async () => {
    if (openwrt) return success(await readOpenwrtIpsecStatus(run, ctx.now(), ipsecServerActive(ctx.config.journal.capture())));
    if (!live) return success({ running: false, sas: [], refusals: [] });
    return success(await readIpsecStatus(root, run, ctx.now(), ipsecServerActive(ctx.config.journal.capture())));
  });

  app.post('/api/auth/ipsec/status', { config: { policy: { module: MODULE, effect: 'write' }, doc: { summary: 'action kick with uniqueId: terminate that IKE SA' } } }, async (request) => {
    const body = kickBody.safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    if (!live && !openwrt) return failure(MSG.notFound);
    // Only the server's own SAs: the network's clients share the charon (OpenWrt's on its default socket).
    const socket = openwrt ? [] : ['--uri', uri];
    const listed = await run(['swanctl', '--list-sas', '--noblock', ...socket], { timeoutMs: 10_000 });
    const sa = listed.exitCode === 0 ? parseListSas(listed.stdout, ctx.now()).find((item) => item.uniqueId === body.data.uniqueId) : undefined;
    if (!sa || isIpsecClientConnection(sa.name)) return failure(MSG.notFound);
    const result = await run(['swanctl', '--terminate', '--ike-id', body.data.uniqueId, '--force', '--timeout', '5', ...socket], { timeoutMs: 15_000 });
    return result.exitCode === 0 ? success() : failure(MSG.notFound);
  });

  app.get('/api/auth/ipsec/log', { config: { policy: { module: MODULE, effect: 'read' }, doc: { summary: "The newest lines of the IPsec server's log" } } }, async () =>
    success(live ? await readIpsecServerLog(root) : { present: false, lines: [], truncated: false }),
  );
}
