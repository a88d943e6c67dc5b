// Revocation on the running OpenVPN server: 1,000 client certificates issued by the daemon's
// PKI, the server running the rendered configuration in a network namespace of its own, three
// clients connected over its loopback. One is revoked the way the console revokes (the CRL
// rewritten, the session halted through the management socket); the figure is the time from
// the revocation to that client's tunnel being torn down. Budget: under 1 s, with the server
// not restarted (same process) and the other clients still connected.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openvpnServer, type OpenvpnServer } from '@portico/schema';
import { runCommand } from '../../apps/daemon/src/engine/command-runner.js';
import { OpenvpnPki } from '../../apps/daemon/src/domains/vpn-server/vpn-server-pki.js';
import { OpenvpnClients, OPENVPN_MIGRATIONS } from '../../apps/daemon/src/domains/vpn-server/vpn-server-clients.js';
import { managementKill, managementSessions } from '../../apps/daemon/src/domains/vpn-server/vpn-server-management.js';
import { openvpnManagementSocket, openvpnPkiDir, renderOpenvpnProfile, renderOpenvpnServer } from '../../apps/daemon/src/domains/vpn-server/vpn-server-openvpn.js';
import { report, reportError } from './bench-util.mjs';

const NAME = 'vpn-openvpn-revoke';
const CLIENTS = Number(process.env.BENCH_OVPN_CLIENTS ?? 1000);
const ns = `ptb${randomBytes(2).toString('hex')}-ovpn`;
const work = mkdtempSync(join(tmpdir(), 'portico-bench-revoke-'));
const processes: ChildProcess[] = [];

async function must(argv: string[]): Promise<void> {
  const result = await runCommand(argv, { timeoutMs: 600_000 });
  if (result.exitCode !== 0) throw new Error(`${argv.join(' ')} failed: ${result.stderr.slice(0, 300)}`);
}

/** Starts openvpn in the namespace; resolves once it says it is up, with a way to read its output. */
function startOpenvpn(args: string[]): Promise<{ child: ChildProcess; log: () => string }> {
  let log = '';
  const child = spawn('ip', ['netns', 'exec', ns, 'openvpn', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  processes.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`openvpn did not come up: ${log.slice(-500)}`)), 60_000);
    const collect = (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (log.includes('Initialization Sequence Completed')) {
        clearTimeout(timer);
        resolve({ child, log: () => log });
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', (code) => reject(new Error(`openvpn exited (${code}): ${log.slice(-500)}`)));
  });
}

try {
  if (process.getuid?.() !== 0) throw new Error('needs root (a network namespace)');
  if (!existsSync('/usr/sbin/openvpn')) await must(['apt-get', 'install', '-y', '-qq', 'openvpn']);
  await must(['ip', 'netns', 'add', ns]);
  await must(['ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);

  const stateDir = join(work, 'state');
  const pki = new OpenvpnPki(openvpnPkiDir(stateDir));
  const db = new Database(':memory:');
  for (const migration of OPENVPN_MIGRATIONS) db.exec(migration.sql);
  const clients = new OpenvpnClients(db, pki, Date.now);
  await pki.ensure();
  for (let i = 0; i < CLIENTS; i++) await clients.add(`client${i}`, '');

  const server: OpenvpnServer = { ...(openvpnServer.schema.parse({}) as OpenvpnServer), enabled: true, host: '127.0.0.1', cipher: 'AES-256-GCM' };
  const conf = join(work, 'server.conf');
  writeFileSync(conf, renderOpenvpnServer(server, stateDir));
  const running = await startOpenvpn(['--config', conf]);
  const ca = await pki.caCertificate();
  const dial = async (name: string) => {
    const profile = join(work, `${name}.ovpn`);
    writeFileSync(profile, renderOpenvpnProfile(server, { name, ca, certificate: clients.get(name)!.certificate, key: await pki.clientKey(name) }), { mode: 0o600 });
    return startOpenvpn(['--config', profile, '--route-nopull', '--connect-retry', '1', '1']);
  };
  const victim = await dial('client500');
  await dial('client1');
  await dial('client999');
  const socket = openvpnManagementSocket(stateDir);
  const before = (await managementSessions(socket)).map((s) => s.name).sort();

  const victimExit = new Promise<number>((resolve) => victim.child.once('exit', () => resolve(performance.now())));
  const started = performance.now();
  await clients.revoke('client500');
  const crlMs = performance.now() - started;
  await managementKill(socket, 'client500');
  const cutMs = (await victimExit) - started;
  const serverPidSame = running.child.exitCode === null && !running.log().includes('SIGHUP');
  const after = (await managementSessions(socket)).map((s) => s.name).filter((n) => n !== 'client500').sort();

  const ok = report(
    NAME,
    {
      issued: CLIENTS,
      revoked_in_crl: clients.revokedEntries().length,
      crl_write_ms: Number(crlMs.toFixed(1)),
      revoke_to_tunnel_down_ms: Number(cutMs.toFixed(1)),
      victim_halted: victim.log().includes('server-pushed-halt'),
      server_restarted: !serverPidSame,
      connected_before: before,
      others_connected_after: after,
    },
    { revoke_to_tunnel_down_ms: 1000 },
  );
  const others = after.length === 2 && serverPidSame && victim.log().includes('server-pushed-halt');
  if (!others) throw new Error(`others dropped or server restarted: ${JSON.stringify({ after, serverPidSame })}`);
  if (!ok && process.env.BENCH_STRICT) process.exitCode = 1;
} catch (error) {
  reportError(NAME, error);
  if (process.env.BENCH_STRICT) process.exitCode = 1;
} finally {
  for (const child of processes) child.kill('SIGTERM');
  await runCommand(['ip', 'netns', 'del', ns]);
  rmSync(work, { recursive: true, force: true });
}
