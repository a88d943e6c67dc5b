import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createLab, inNs, setClientAddress, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { LabDaemon } from './lab-daemon.js';
import { managementCommand } from '../../apps/daemon/src/domains/vpn-server/vpn-server-management.js';

/**
 * The OpenVPN server for real: the built daemon on the linux driver in the gateway namespace,
 * an OpenVPN client on the WAN side (the "internet" namespace) dialling it with the profile the
 * console exports. The client reaches a LAN host through the tunnel; once its certificate is
 * revoked it is cut off within 5 s and its reconnections are refused.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const WAN_ADDRESS = '198.51.100.2';
const LAN_HOST = '192.168.11.60';

let lab: Lab;
let daemon: LabDaemon;
const work = mkdtempSync(join(tmpdir(), 'portico-lab-ovpn-'));

beforeAll(async () => {
  lab = createLab({ clients: 2 });
  daemon = new LabDaemon(lab);
  await daemon.bootAndSignIn();
  // The WAN side: the gateway's address on wan1, the client dials it from the internet namespace.
  inNs(lab.gw, ['ip', 'addr', 'add', `${WAN_ADDRESS}/24`, 'dev', 'wan1']);
  setClientAddress(lab, 1, LAN_HOST);
}, 120_000);

afterAll(async () => {
  for (const dialled of clients) {
    writeFileSync(join(tmpdir(), `portico-lab-ovpn-client-${clients.indexOf(dialled)}.log`), dialled.log());
    dialled.child.kill('SIGTERM');
  }
  await daemon?.dispose();
  lab?.down();
  rmSync(work, { recursive: true, force: true });
});

const clients: Array<{ child: ChildProcess; log: () => string }> = [];
/** An OpenVPN client in the internet namespace with this profile; its output collected. */
function dial(profile: string, ns = lab.inet, extra: string[] = []): { child: ChildProcess; log: () => string } {
  let log = '';
  const child = spawn('ip', ['netns', 'exec', ns, 'openvpn', '--config', profile, '--connect-retry', '1', '1', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  const collect = (chunk: Buffer) => (log += chunk.toString('utf8'));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const dialled = { child, log: () => log };
  clients.push(dialled);
  return dialled;
}

const pingLan = () => inNs(lab.inet, ['ping', '-c', '1', '-W', '1', LAN_HOST], { allowFail: true }).status;
const sessions = () => (daemon.http('GET', '/api/auth/openvpn/status').json?.data?.sessions ?? []) as Array<{ name: string }>;

describe('OpenVPN server in the lab', () => {
  test('a client with the exported profile reaches the LAN; revoked, it is cut off within 5 s and cannot reconnect', async () => {
    const saved = daemon.http('POST', '/api/auth/openvpn', { enabled: true, host: WAN_ADDRESS, push_routes: '192.168.11.0/24' }, 30_000).json;
    expect(saved).toMatchObject({ success: true });
    await expect.poll(() => daemon.http('GET', '/api/auth/openvpn/status').json?.data?.running, { timeout: 30_000, interval: 200 }).toBe(true);
    expect(daemon.http('POST', '/api/auth/openvpn/clients', { action: 'add', name: 'alice' }).json).toMatchObject({ success: true });
    const exported = daemon.http('POST', '/api/auth/openvpn/exportconf', { name: 'alice' });
    expect(exported.status).toBe(200);
    expect(exported.text).toContain('<key>');
    const profile = join(work, 'alice.ovpn');
    writeFileSync(profile, exported.text, { mode: 0o600 });
    // A second client, dialling from the LAN side, stays connected through alice's revocation.
    expect(daemon.http('POST', '/api/auth/openvpn/clients', { action: 'add', name: 'bob' }).json).toMatchObject({ success: true });
    const bobProfile = join(work, 'bob.ovpn');
    writeFileSync(bobProfile, daemon.http('POST', '/api/auth/openvpn/exportconf', { name: 'bob' }).text, { mode: 0o600 });
    const bob = dial(bobProfile, lab.clients[1]!.ns, ['--route-nopull']);
    await vi.waitFor(() => expect(bob.log()).toContain('Initialization Sequence Completed'), { timeout: 60_000, interval: 100 });
    const pingFromBob = () => inNs(lab.clients[1]!.ns, ['ping', '-c', '1', '-W', '1', '10.8.0.1'], { allowFail: true }).status;
    await expect.poll(pingFromBob, { timeout: 20_000, interval: 100 }).toBe(0);

    const first = dial(profile);
    await vi.waitFor(() => expect(first.log()).toContain('Initialization Sequence Completed'), { timeout: 60_000, interval: 100 });
    expect(first.log()).toMatch(/Data Channel: cipher 'AES-256-GCM'/);
    await expect.poll(pingLan, { timeout: 20_000, interval: 100 }).toBe(0);
    expect(sessions().map((s) => s.name).sort()).toEqual(['alice', 'bob']);

    const logBefore = first.log().length;
    const revokedAt = Date.now();
    expect(daemon.http('POST', '/api/auth/openvpn/clients', { action: 'revoke', name: 'alice' }).json).toMatchObject({ success: true, data: { msg: 'msg.openvpn.revoked' } });
    // Cut off: the tunnel no longer carries its traffic, measured against the 5 s the product promises.
    await expect.poll(pingLan, { timeout: 5_000, interval: 50 }).not.toBe(0);
    expect(Date.now() - revokedAt).toBeLessThan(5_000);
    // The server told it to stop; dialled again with the same profile, the CRL refuses it.
    await vi.waitFor(() => expect(first.child.exitCode).not.toBeNull(), { timeout: 20_000, interval: 100 });
    expect(first.log().slice(logBefore)).toMatch(/server-pushed-halt/);
    // The server ends its side of the session a few seconds after the halt (OpenVPN's delayed exit).
    await expect.poll(() => sessions().map((s) => s.name), { timeout: 15_000, interval: 200 }).toEqual(['bob']);
    // A short handshake window: the server never completes a handshake with a revoked certificate.
    const again = dial(profile, lab.inet, ['--hand-window', '10']);
    await vi.waitFor(() => expect(again.log()).toMatch(/alert certificate revoked|AUTH_FAILED|TLS Error/), { timeout: 60_000, interval: 100 });
    expect(again.log()).not.toContain('Initialization Sequence Completed');
    expect(sessions().map((s) => s.name)).toEqual(['bob']);
    expect(pingLan()).not.toBe(0);
    expect(pingFromBob()).toBe(0);
    expect(bob.log().match(/Initialization Sequence Completed/g)).toHaveLength(1);
  }, 240_000);

  test('a server that dies is started again by the daemon', async () => {
    const socket = join(daemon.stateDir, 'vpn-server/openvpn.sock');
    const answer = await managementCommand(socket, 'pid');
    const pid = Number(/pid=(\d+)/.exec(answer[0] ?? '')?.[1]);
    expect(pid).toBeGreaterThan(1);
    process.kill(pid, 'SIGKILL');
    await expect.poll(async () => Number(/pid=(\d+)/.exec((await managementCommand(socket, 'pid').catch(() => ['']))[0] ?? '')?.[1] ?? 0), { timeout: 30_000, interval: 200 }).not.toBe(pid);
    await expect.poll(() => daemon.http('GET', '/api/auth/openvpn/status').json?.data?.running, { timeout: 30_000, interval: 200 }).toBe(true);
  }, 60_000);
});
