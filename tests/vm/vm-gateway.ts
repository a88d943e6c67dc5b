import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GatewayVm, guestPortName, IMAGE_FILE } from '../../image/vm-guest.mjs';
import { IMAGE_LAYOUT } from '../../image/image-layout.mjs';
import { inNs, run } from '../lab/lab-topology.js';

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

export async function startVmGateway(options: { memoryMiB?: number } = {}): Promise<VmGateway> {
  const prefix = `pv${randomBytes(2).toString('hex')}`;
  const upstreamNs = `${prefix}-up`;
  const clientNs = `${prefix}-cl`;
  const wanTap = `${prefix}w`;
  const lanTap = `${prefix}l`;
  const work = mkdtempSync(join(tmpdir(), 'portico-vmtier-'));
  const helpers: ChildProcess[] = [];
  const vm = new GatewayVm({ ports: [wanTap, lanTap], memoryMiB: options.memoryMiB ?? 1024 });
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
      ['ip', 'netns', 'exec', upstreamNs, process.execPath, join(here, 'vm-upstream-server.mjs'), UPSTREAM.address, String(UPSTREAM.httpPort)],
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
