import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { IPSEC_LOG_LINES_MAX, ipsecLogSchema, type IpsecLog, type VpnClient } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { envelope, success } from '../../plugins/api-envelope.js';
import { NETWORK_FILES } from './network-config.js';
import { readNetworkRows } from './network-domain.js';

export const IPSEC_LOG_URL = '/api/vpnclient/ipseclog';

/** The end of the log read: enough for the newest lines without reading a large file whole. */
const TAIL_BYTES = 64 * 1024;

/** The newest lines of a text, oldest first; a line cut by the read window is dropped. */
export function tailLines(text: string, cutAtStart: boolean, max = IPSEC_LOG_LINES_MAX): { lines: string[]; truncated: boolean } {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (cutAtStart) lines.shift();
  const truncated = cutAtStart || lines.length > max;
  return { lines: lines.slice(-max), truncated };
}

/** The one charon's log on the linux driver (network-ike-daemon.ts): its newest `max` lines. */
export async function readIpsecLogFile(path: string, max = IPSEC_LOG_LINES_MAX): Promise<IpsecLog> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { source: 'file', present: false, lines: [], truncated: false };
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    return { source: 'file', present: true, ...tailLines(buffer.toString('utf8'), start > 0, max) };
  } finally {
    await handle.close();
  }
}

function clock(at: number): string {
  // charon's default time format, `%b %e %T`, in UTC.
  const date = new Date(at);
  const month = date.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
  const day = String(date.getUTCDate()).padStart(2, ' ');
  return `${month} ${day} ${date.toISOString().slice(11, 19)}`;
}

/**
 * The sim driver's IPsec log: what charon would write for each enabled IPsec client as it
 * comes up, stamped the minute before now. Nothing is negotiated on `sim`; the reply says so
 * with `source: 'simulated'`.
 */
export function simulatedIpsecLog(clients: readonly VpnClient[], now: number): IpsecLog {
  const lines: string[] = [];
  clients
    .filter((client) => client.enabled && client.type === 'ipsec')
    .forEach((client, index) => {
      const at = clock(now - 60_000 + index * 1000);
      const sa = `${client.name}[${index + 1}]`;
      const child = `${client.name}{${index + 1}}`;
      const version = client.ike === 'ikev1' ? 'IKEv1' : 'IKEv2';
      lines.push(`${at} 05[IKE] <${sa}> initiating ${version} IKE_SA ${sa} to ${client.server}`);
      lines.push(`${at} 06[IKE] <${sa}> authentication of '${client.remote_id || client.server}' with pre-shared key successful`);
      lines.push(`${at} 06[IKE] <${sa}> IKE_SA ${sa} established`);
      lines.push(`${at} 06[IKE] <${sa}> CHILD_SA ${child} established with remote subnets ${client.peer_subnets}`);
    });
  return { source: 'simulated', present: lines.length > 0, lines, truncated: false };
}

/** `GET vpnclient/ipseclog`: the IPsec client's log as this driver has it. */
export function registerIpsecLogRoute(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    IPSEC_LOG_URL,
    {
      config: { policy: { module: 'vpnclient', effect: 'read' }, doc: { summary: 'The newest lines of the IPsec client log' } },
      schema: { response: { 200: envelope(ipsecLogSchema) } },
    },
    async () => {
      const { driver, systemRoot } = ctx.settings;
      if (driver === 'sim') return success(simulatedIpsecLog(readNetworkRows(ctx.db).vpnClient ?? [], ctx.now()));
      if (driver === 'linux') return success(await readIpsecLogFile(join(systemRoot, NETWORK_FILES.ipsecLog)));
      return success({ source: 'unavailable', present: false, lines: [], truncated: false } satisfies IpsecLog);
    },
  );
}
