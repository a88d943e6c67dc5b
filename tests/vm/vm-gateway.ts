import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GatewayVm, guestPortName, IMAGE_FILE } from '../../image/vm-guest.mjs';
import { IMAGE_LAYOUT } from '../../image/image-layout.mjs';
import { inNs, run } from '../lab/lab-topology.js';
import { ApiSession } from '../e2e/e2e-harness.js';

/**
 * The VM tier's topology: the gateway image under QEMU with two Ethernet ports on host taps,
 * each moved into a namespace this run made.
 *
 *   <p>-up   upstream: 10.77.0.1/24, a DHCP server for the gateway's WAN, an HTTP server
 *    └─ tap ── enp0s3 (WAN) ─ gateway VM ─ enp0s4 (LAN, br-lan 192.168.11.1) ── tap ─ <p>-cl (a LAN client)
 *
 * The console is reached from the host's loopback through two relays (vm-relay.mjs) joined by a
 * unix socket. Nothing outside these namespaces is touched; `down()` removes all of it.
 */

const here = dirname(fileURLToPath(import.meta.url));
export const UPSTREAM = { address: '10.77.0.1', prefix: 24, poolStart: '10.77.0.50', poolEnd: '10.77.0.99', httpPort: 8000 };
export const GATEWAY_LAN = '192.168.11.1';

export interface VmGateway {
  vm: GatewayVm;
  upstreamNs: string;
  clientNs: string;
  wanTap: string;
  lanTap: string;
  /** http://127.0.0.1:<port>: the console through the relays (needs the client's lease). */
  consoleUrl: string;
  /** The LAN client's DHCP lease, requested once and configured in its namespace. */
  clientLease(): { address: string; router: string };
  /** Seconds from QEMU's start to the guest agent's first answer, once known. */
  agentSeconds: number;
  down(): Promise<void>;
}

export function vmPrerequisites(): string | null {
  if (process.getuid?.() !== 0) return 'the VM tier needs root (taps, namespaces)';
  if (!existsSync(IMAGE_FILE)) return `no image at ${IMAGE_FILE}: npm run image`;
  if (!existsSync('/usr/bin/qemu-system-x86_64')) return 'qemu-system-x86_64 is missing (Debian: qemu-system-x86)';
  return null;
}

/** Starts a long-running helper and resolves once it printed a line matching `ready`. */
export function startHelper(argv: string[], ready: RegExp, timeoutMs = 30_000): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${argv.join(' ')}: not ready in ${timeoutMs} ms: ${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${argv.join(' ')} exited ${code}: ${output}`));
    });
  });
}

/** Requests a DHCP lease in `ns` with busybox udhcpc and configures it; answers the address. */
export function dhcpLease(ns: string, ifname: string): { address: string; router: string } {
  // -s /bin/true: udhcpc only reports the lease; the test sets it, and nothing writes resolv.conf.
  const result = inNs(ns, ['busybox', 'udhcpc', '-i', ifname, '-n', '-q', '-f', '-t', '20', '-T', '2', '-s', '/bin/true'], { timeoutMs: 90_000 });
  const lease = /lease of ([\d.]+) obtained(?: from ([\d.]+))?/.exec(`${result.stdout}\n${result.stderr}`);
  if (!lease) throw new Error(`no lease in: ${result.stderr}`);
  return { address: lease[1]!, router: lease[2] ?? GATEWAY_LAN };
}

/**
 * `reboot`: a guest reboot restarts within QEMU (keeping the snapshot's writes) instead of ending
 * it; `firmwareDir`: the upstream's HTTP server is also the update server of that folder.
 */
export async function startVmGateway(options: { memoryMiB?: number; reboot?: boolean; firmwareDir?: string } = {}): Promise<VmGateway> {
  const prefix = `pv${randomBytes(2).toString('hex')}`;
  const upstreamNs = `${prefix}-up`;
  const clientNs = `${prefix}-cl`;
  const wanTap = `${prefix}w`;
  const lanTap = `${prefix}l`;
  const work = mkdtempSync(join(tmpdir(), 'portico-vmtier-'));
  const helpers: ChildProcess[] = [];
  const vm = new GatewayVm({ ports: [wanTap, lanTap], memoryMiB: options.memoryMiB ?? 1024, reboot: options.reboot ?? false });
  const down = async () => {
    for (const child of helpers) child.kill('SIGTERM');
    await vm.stop();
    for (const ns of [upstreamNs, clientNs]) run(['ip', 'netns', 'del', ns], { allowFail: true });
    for (const tap of [wanTap, lanTap]) run(['ip', 'link', 'del', tap], { allowFail: true });
    rmSync(work, { recursive: true, force: true });
  };
  try {
    run(['ip', 'netns', 'add', upstreamNs]);
    run(['ip', 'netns', 'add', clientNs]);
    await vm.start();
    run(['ip', 'link', 'set', wanTap, 'netns', upstreamNs]);
    run(['ip', 'link', 'set', lanTap, 'netns', clientNs]);
    for (const ns of [upstreamNs, clientNs]) inNs(ns, ['ip', 'link', 'set', 'lo', 'up']);
    inNs(upstreamNs, ['ip', 'addr', 'add', `${UPSTREAM.address}/${UPSTREAM.prefix}`, 'dev', wanTap]);
    inNs(upstreamNs, ['ip', 'link', 'set', wanTap, 'up']);
    inNs(clientNs, ['ip', 'link', 'set', lanTap, 'up']);

    // The ISP: DHCP for the gateway's WAN, and a server that says who reached it.
    const dnsmasq = await startHelper(
      [
        'ip', 'netns', 'exec', upstreamNs, 'dnsmasq', '--keep-in-foreground', '--log-facility=-', '--port=0', '--bind-interfaces',
        `--interface=${wanTap}`, `--dhcp-range=${UPSTREAM.poolStart},${UPSTREAM.poolEnd},1h`, `--dhcp-option=option:router,${UPSTREAM.address}`,
        `--dhcp-leasefile=${join(work, 'upstream.leases')}`, '--log-dhcp',
      ],
      /started, version/,
    );
    helpers.push(dnsmasq.child);
    const server = await startHelper(
      ['ip', 'netns', 'exec', upstreamNs, process.execPath, join(here, 'vm-upstream-server.mjs'), UPSTREAM.address, String(UPSTREAM.httpPort), ...(options.firmwareDir ? [options.firmwareDir] : [])],
      /listening/,
    );
    helpers.push(server.child);

    // The console, from the host's loopback: host port → unix socket → (client namespace) → gateway.
    const socket = join(work, 'console.sock');
    const inner = await startHelper(['ip', 'netns', 'exec', clientNs, process.execPath, join(here, 'vm-relay.mjs'), `unix:${socket}`, `tcp:${GATEWAY_LAN}:${IMAGE_LAYOUT.consolePort}`], /listening/);
    helpers.push(inner.child);
    const outer = await startHelper([process.execPath, join(here, 'vm-relay.mjs'), 'tcp:127.0.0.1:0', `unix:${socket}`], /listening (\d+)/);
    helpers.push(outer.child);
    let lease: { address: string; router: string } | undefined;
    const clientLease = () => {
      if (lease) return lease;
      lease = dhcpLease(clientNs, lanTap);
      inNs(clientNs, ['ip', 'addr', 'add', `${lease.address}/24`, 'dev', lanTap]);
      inNs(clientNs, ['ip', 'route', 'replace', 'default', 'via', lease.router]);
      return lease;
    };
    return { vm, upstreamNs, clientNs, wanTap, lanTap, consoleUrl: `http://127.0.0.1:${outer.match[1]}`, clientLease, agentSeconds: 0, down };
  } catch (error) {
    await down();
    throw error;
  }
}

export { guestPortName };

/** How long a boot may take: minutes without KVM. */
export const BOOT_LIMIT_MS = 600_000;

/** Polls `probe` until `done` holds (for hooks, where expect.poll is not allowed). */
export async function poll<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A command in a guest that may be rebooting: its output, or '' until the agent answers again. */
export async function guestWhileRebooting(gw: VmGateway, argv: string[]): Promise<string> {
  try {
    return await gw.vm.agent.run(argv, { timeoutMs: 20_000 });
  } catch {
    try {
      await gw.vm.agent.sync(5000);
    } catch {
      // Still rebooting.
    }
    return '';
  }
}

/** Waits until a LAN client has its lease and the console answers through the relays. */
export async function consoleReady(gw: VmGateway, timeoutMs = BOOT_LIMIT_MS): Promise<void> {
  await poll(
    async () => {
      try {
        gw.clientLease();
        return (await fetch(`${gw.consoleUrl}/api/changelang`, { signal: AbortSignal.timeout(5000) })).status;
      } catch {
        return 0;
      }
    },
    (status) => status === 200,
    timeoutMs,
    'the console through the LAN',
  );
}

/** An administrator signed in with a password of their own, writing as the console does. */
export interface AdminApi {
  api: ApiSession;
  /** Writes a change and confirms it when the daemon asks (changes that may cut access). */
  write(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export async function signIn(gw: VmGateway, password: string): Promise<AdminApi> {
  const initial = (await gw.vm.agent.readFile(`${IMAGE_LAYOUT.stateDir}/initial-admin-password`)).trim();
  const api = new ApiSession(gw.consoleUrl);
  const login = await api.login('admin', initial);
  if (!login.success) throw new Error(`login: ${JSON.stringify(login)}`);
  const changed = await api.post('changepwd', { oldpassword: initial, password, confirm: password });
  if (!changed.success) throw new Error(`password change: ${JSON.stringify(changed)}`);
  api.csrf = String((changed.data as { csrf: string }).csrf);
  const write = async (path: string, body: Record<string, unknown>) => {
    const reply = await api.post(path, body);
    if (!reply.success) throw new Error(`${path}: ${JSON.stringify(reply)}`);
    // A change that can cut the administrator off waits for its one-time token back.
    const ticket = (reply.data as { confirm?: { token?: string } } | undefined)?.confirm;
    if (ticket) {
      const confirmed = await api.post('sysconf/confirm', { token: ticket.token });
      if (!confirmed.success) throw new Error(`confirm: ${JSON.stringify(confirmed)}`);
    }
    return reply;
  };
  return { api, write };
}

/** The data of a read the API answered with success; anything else throws with the answer. */
export async function apiData(admin: AdminApi, path: string): Promise<Record<string, any>> {
  const reply = await admin.api.get(path);
  if (!reply.success) throw new Error(`${path}: ${JSON.stringify(reply)}`);
  return reply.data as Record<string, any>;
}

/** The data of a command (a POST that needs no confirmation) answered with success. */
export async function apiCommand(admin: AdminApi, path: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const reply = await admin.api.post(path, body);
  if (!reply.success) throw new Error(`${path}: ${JSON.stringify(reply)}`);
  return reply.data as Record<string, any>;
}

/** Figures of this run for the closing report (the VM tier prints them at the end). */
export function recordFigures(figures: Record<string, unknown>): void {
  if (process.env.PORTICO_VM_FIGURES) appendFileSync(process.env.PORTICO_VM_FIGURES, `${JSON.stringify(figures)}\n`);
}

export const roundSeconds = (seconds: number) => Math.round(seconds * 10) / 10;

/** Writes a file in the guest (its folder made), with `mode`. */
export async function writeGuestFile(gw: VmGateway, path: string, content: string, mode = '600'): Promise<void> {
  await gw.vm.agent.run(['/usr/bin/mkdir', '-p', path.slice(0, path.lastIndexOf('/'))]);
  await gw.vm.agent.run(['/usr/bin/tee', path], { input: content });
  await gw.vm.agent.run(['/usr/bin/chmod', mode, path]);
}

/**
 * A namespace inside the guest joined to the gateway by veth pairs: the daemon's ports are the
 * near ends (`lp1` …), the peer's the far ends (`pp1` …). The guest's kernel has what the
 * host's lacks (802.1Q, bonding, PPP, L2TP), so the far side of every link runs there. Several
 * peers name their ends apart with `names` (prefixes of the near and far ends).
 */
export class GuestPeer {
  constructor(
    private readonly gw: VmGateway,
    readonly ns = 'peer',
    readonly names: { near: string; far: string } = { near: 'lp', far: 'pp' },
  ) {}

  /** The gateway's end of veth pair `i` (1-based). */
  near(i: number): string {
    return `${this.names.near}${i}`;
  }

  /** The peer's end of veth pair `i` (1-based). */
  far(i: number): string {
    return `${this.names.far}${i}`;
  }

  async create(ports: number): Promise<void> {
    const { agent } = this.gw.vm;
    await agent.run(['/usr/sbin/ip', 'netns', 'add', this.ns]);
    await this.run(['/usr/sbin/ip', 'link', 'set', 'lo', 'up']);
    for (let i = 1; i <= ports; i += 1) {
      await agent.run(['/usr/sbin/ip', 'link', 'add', this.near(i), 'type', 'veth', 'peer', 'name', this.far(i), 'netns', this.ns]);
      await agent.run(['/usr/sbin/ip', 'link', 'set', this.near(i), 'up']);
      await this.run(['/usr/sbin/ip', 'link', 'set', this.far(i), 'up']);
    }
  }

  /** Runs argv in the peer namespace; throws when it fails. */
  run(argv: string[], options?: { input?: string; timeoutMs?: number }): Promise<string> {
    return this.gw.vm.agent.run(['/usr/sbin/ip', 'netns', 'exec', this.ns, ...argv], options);
  }

  async ping(address: string, extra: string[] = []): Promise<boolean> {
    return (await this.gw.vm.agent.exec(['/usr/sbin/ip', 'netns', 'exec', this.ns, '/usr/bin/ping', '-c', '1', '-W', '2', ...extra, address])).code === 0;
  }

  /**
   * Writes a file the peer's programs see at /etc/<path>: `ip netns exec` binds
   * /etc/netns/<ns>/<entry> over /etc/<entry>, so the peer's /etc/ppp is not the gateway's.
   */
  async writeEtc(path: string, content: string): Promise<void> {
    const file = `/etc/netns/${this.ns}/${path}`;
    await this.gw.vm.agent.run(['/usr/bin/mkdir', '-p', file.slice(0, file.lastIndexOf('/'))]);
    await this.gw.vm.agent.run(['/usr/bin/tee', file], { input: content });
    await this.gw.vm.agent.run(['/usr/bin/chmod', '600', file]);
  }
}

/** A booted gateway, its console reached, an administrator signed in, a peer on `ports` veth pairs. */
export async function startSignedInGateway(password: string, ports: number): Promise<{ gw: VmGateway; admin: AdminApi; peer: GuestPeer }> {
  const gw = await startVmGateway();
  try {
    await gw.vm.booted(BOOT_LIMIT_MS);
    await consoleReady(gw);
    const admin = await signIn(gw, password);
    const peer = new GuestPeer(gw);
    await peer.create(ports);
    return { gw, admin, peer };
  } catch (error) {
    // The caller never got the guest: it is stopped here.
    await gw.down();
    throw error;
  }
}
