import { connect } from 'node:net';
import type { OpenvpnSession } from '@portico/schema';

/**
 * The running OpenVPN server's management interface (a unix socket only the daemon can
 * reach): how a revocation cuts a connected client off at once, how sessions are listed and
 * kicked. One short connection per command.
 */

export class ManagementUnavailable extends Error {}

/** Sends one command and resolves with its answer: the lines up to END, or the SUCCESS/ERROR line. */
export function managementCommand(socket: string, command: string, timeoutMs = 3000): Promise<string[]> {
  if (/[\r\n]/.test(command)) return Promise.reject(new Error('a management command is one line'));
  return new Promise((resolve, reject) => {
    const client = connect(socket);
    let buffer = '';
    let sent = false;
    const lines: string[] = [];
    const timer = setTimeout(() => finish(new ManagementUnavailable('the OpenVPN server did not answer')), timeoutMs);
    function finish(error: Error | null, answer?: string[]) {
      clearTimeout(timer);
      client.destroy();
      if (error) reject(error);
      else resolve(answer ?? []);
    }
    client.on('error', (error) => finish(new ManagementUnavailable(error.message)));
    client.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        // Real-time notices (>INFO, >CLIENT …) are not answers.
        if (line.startsWith('>')) {
          if (!sent) {
            sent = true;
            client.write(`${command}\n`);
          }
          continue;
        }
        if (!sent) continue;
        if (line.startsWith('SUCCESS:') || line.startsWith('ERROR:')) return finish(null, [line]);
        if (line === 'END') return finish(null, lines);
        lines.push(line);
      }
    });
  });
}

/** Connected clients, from `status 3` (tab-separated CLIENT_LIST rows). */
export async function managementSessions(socket: string): Promise<OpenvpnSession[]> {
  return (await clientRows(socket)).map((row) => row.session);
}

async function clientRows(socket: string): Promise<Array<{ id: string; session: OpenvpnSession }>> {
  const lines = await managementCommand(socket, 'status 3');
  const sessions: Array<{ id: string; session: OpenvpnSession }> = [];
  for (const line of lines) {
    const cells = line.split('\t');
    if (cells[0] !== 'CLIENT_LIST') continue;
    sessions.push({
      id: cells[10] ?? '',
      session: {
        name: cells[1] ?? '',
        from: cells[2] ?? '',
        address: cells[3] ?? '',
        rx: Number(cells[5] ?? 0),
        tx: Number(cells[6] ?? 0),
        since: Number(cells[8] ?? 0) * 1000,
      },
    });
  }
  return sessions;
}

/**
 * Disconnects every session of this common name and tells each client to stop (`HALT`), so a
 * revoked client neither keeps its tunnel nor keeps retrying; a client kicked off may dial again
 * (`RESTART`). Over UDP a session only dropped on the server would live on at the client until
 * its ping timeout. Resolves with the number of sessions ended.
 */
export async function managementKill(socket: string, name: string, then: 'HALT' | 'RESTART' = 'HALT'): Promise<number> {
  let ended = 0;
  for (const row of await clientRows(socket)) {
    if (row.session.name !== name || !/^[0-9]+$/.test(row.id)) continue;
    const [answer] = await managementCommand(socket, `client-kill ${row.id} ${then}`);
    if (answer?.startsWith('SUCCESS:')) ended++;
  }
  return ended;
}

/** Makes the server read its configuration and certificates again (a new server certificate). */
export async function managementReload(socket: string): Promise<void> {
  await managementCommand(socket, 'signal SIGHUP');
}
