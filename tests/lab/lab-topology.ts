import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * The network lab (DESIGN §8): network namespaces joined by veth links.
 *
 *   inet  (upstream "internet": HTTP and DNS servers on 192.0.2.80)
 *    ├─ up1 198.51.100.1/24 ── wan1 198.51.100.2/24 ─┐
 *    └─ up2 203.0.113.1/24  ── wan2 203.0.113.2/24 ─ gw  (the daemon, `linux` driver)
 *                                                    └─ br-lan (lan) ── cl1, cl2, … (clients)
 *
 * Every name carries a per-run prefix, so runs never collide and cleanup removes exactly what
 * this run made. Nothing outside these namespaces is touched. Needs root.
 */

export interface LabClient {
  ns: string;
  /** The client's interface inside its namespace. */
  ifname: string;
  mac: string;
}

export interface Lab {
  prefix: string;
  inet: string;
  gw: string;
  clients: LabClient[];
  /** Gateway-side interface names. */
  wan1: string;
  wan2: string;
  lanBridge: string;
  upstream: { wan1: string; wan2: string; server: string };
  down(): void;
}

export interface RunOptions {
  allowFail?: boolean;
  input?: string;
  /** Killed after this long (a dropped connection would otherwise hang the suite). */
  timeoutMs?: number;
}

export function run(argv: string[], options: RunOptions = {}) {
  const [command, ...args] = argv;
  const result = spawnSync(command!, args, { encoding: 'utf8', input: options.input, timeout: options.timeoutMs ?? 30_000, killSignal: 'SIGKILL' });
  if (result.error && !(options.allowFail && (result.error as NodeJS.ErrnoException).code === 'ETIMEDOUT')) throw result.error;
  if (result.status !== 0 && !options.allowFail) {
    throw new Error(`${argv.join(' ')} failed (${result.status}): ${result.stderr}`);
  }
  return result;
}

/** Runs a command inside a namespace: `ip netns exec <ns> <argv…>`. */
export function inNs(ns: string, argv: string[], options: RunOptions = {}) {
  return run(['ip', 'netns', 'exec', ns, ...argv], options);
}

export const SERVER_ADDRESS = '192.0.2.80';

/** curl run inside a namespace, silent, with a time limit; what did not answer leaves stdout empty. */
export function curlIn(ns: string, args: string[], timeoutS = 3) {
  return inNs(ns, ['curl', '-s', '-m', String(timeoutS), ...args], { allowFail: true, timeoutMs: (timeoutS + 3) * 1000 });
}

/** Gives a client a static address on the lab LAN (192.168.11.0/24) with the gateway as its route out. */
export function setClientAddress(lab: Lab, index: number, ip: string, gateway = '192.168.11.1'): void {
  const client = lab.clients[index]!;
  inNs(client.ns, ['ip', 'addr', 'flush', 'dev', client.ifname]);
  inNs(client.ns, ['ip', 'addr', 'add', `${ip}/24`, 'dev', client.ifname]);
  inNs(client.ns, ['ip', 'route', 'replace', 'default', 'via', gateway]);
}

export function createLab(options: { clients?: number } = {}): Lab {
  const prefix = `pt${randomBytes(2).toString('hex')}`;
  const inet = `${prefix}-inet`;
  const gw = `${prefix}-gw`;
  const created: string[] = [];
  const lab: Lab = {
    prefix,
    inet,
    gw,
    clients: [],
    wan1: 'wan1',
    wan2: 'wan2',
    lanBridge: 'br-lan',
    upstream: { wan1: '198.51.100.1', wan2: '203.0.113.1', server: SERVER_ADDRESS },
    down() {
      // Deleting a namespace deletes its interfaces and the veth peers with them.
      for (const ns of created.reverse()) run(['ip', 'netns', 'del', ns], { allowFail: true });
    },
  };
  try {
    for (const ns of [inet, gw]) {
      run(['ip', 'netns', 'add', ns]);
      created.push(ns);
      inNs(ns, ['ip', 'link', 'set', 'lo', 'up']);
    }
    // Upstream links: created inside inet, one end moved to gw, so no host interface exists even briefly.
    for (const [up, wan, inetAddr] of [
      ['up1', 'wan1', '198.51.100.1/24'],
      ['up2', 'wan2', '203.0.113.1/24'],
    ] as const) {
      inNs(inet, ['ip', 'link', 'add', up, 'type', 'veth', 'peer', 'name', wan]);
      inNs(inet, ['ip', 'link', 'set', wan, 'netns', gw]);
      inNs(inet, ['ip', 'addr', 'add', inetAddr, 'dev', up]);
      inNs(inet, ['ip', 'link', 'set', up, 'up']);
      inNs(gw, ['ip', 'link', 'set', wan, 'up']);
    }
    inNs(inet, ['ip', 'addr', 'add', `${SERVER_ADDRESS}/32`, 'dev', 'lo']);
    inNs(gw, ['ip', 'link', 'add', 'br-lan', 'type', 'bridge']);
    inNs(gw, ['ip', 'link', 'set', 'br-lan', 'up']);
    for (let i = 1; i <= (options.clients ?? 2); i++) {
      const ns = `${prefix}-cl${i}`;
      run(['ip', 'netns', 'add', ns]);
      created.push(ns);
      inNs(ns, ['ip', 'link', 'set', 'lo', 'up']);
      const mac = `02:00:00:00:0${Math.floor(i / 16).toString(16)}:${(i % 256).toString(16).padStart(2, '0')}`;
      inNs(ns, ['ip', 'link', 'add', 'eth0', 'address', mac, 'type', 'veth', 'peer', 'name', `lanp${i}`]);
      inNs(ns, ['ip', 'link', 'set', `lanp${i}`, 'netns', gw]);
      inNs(ns, ['ip', 'link', 'set', 'eth0', 'up']);
      inNs(gw, ['ip', 'link', 'set', `lanp${i}`, 'master', 'br-lan']);
      inNs(gw, ['ip', 'link', 'set', `lanp${i}`, 'up']);
      lab.clients.push({ ns, ifname: 'eth0', mac });
    }
    return lab;
  } catch (error) {
    lab.down();
    throw error;
  }
}

/** Namespaces left by earlier runs that died before cleaning up (names `pt????-…`). */
export function staleLabNamespaces(): string[] {
  const out = run(['ip', 'netns', 'list'], { allowFail: true }).stdout ?? '';
  return out
    .split('\n')
    .map((line) => line.split(' ')[0]!)
    .filter((name) => /^pt[0-9a-f]{4}-(inet|gw|cl\d+|ap\d+|sta\d+)$/.test(name));
}

export function removeStaleLabs(): void {
  for (const ns of staleLabNamespaces()) run(['ip', 'netns', 'del', ns], { allowFail: true });
}
