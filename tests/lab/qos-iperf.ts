import { spawn, type ChildProcess } from 'node:child_process';
import { inNs } from './lab-topology.js';

/** iperf3 in the lab's namespaces: servers upstream, clients on the LAN, rates in kbit/s. */

export interface IperfServers {
  stop(): void;
}

export function startIperfServers(ns: string, address: string, ports: readonly number[]): IperfServers {
  const children: ChildProcess[] = ports.map((port) =>
    spawn('ip', ['netns', 'exec', ns, 'iperf3', '-s', '-B', address, '-p', String(port)], { stdio: 'ignore' }),
  );
  return {
    stop() {
      for (const child of children) child.kill('SIGKILL');
    },
  };
}

export interface IperfRun {
  seconds?: number;
  /** Download (server sends) instead of upload. */
  reverse?: boolean;
}

function iperfArgs(server: string, port: number, run: IperfRun): string[] {
  const seconds = run.seconds ?? 4;
  // The first second (TCP slow start, HTB's initial burst) is left out of the figure.
  return ['iperf3', '-c', server, '-p', String(port), '-t', String(seconds), '-O', '1', '-J', ...(run.reverse ? ['-R'] : [])];
}

function receivedKbit(json: string): number {
  const report = JSON.parse(json) as { end?: { sum_received?: { bits_per_second: number } }; error?: string };
  if (!report.end?.sum_received) throw new Error(`iperf3 gave no result: ${report.error ?? json.slice(0, 200)}`);
  return report.end.sum_received.bits_per_second / 1000;
}

/** Waits until the server answers (it binds a moment after it is spawned). */
export async function waitForIperf(client: string, server: string, port: number): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const probe = inNs(client, ['iperf3', '-c', server, '-p', String(port), '-t', '1', '-J'], { allowFail: true, timeoutMs: 5000 });
    if (probe.status === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`iperf3 server ${server}:${port} does not answer`);
}

/** One measurement, in kbit/s of payload received. */
export function iperfKbit(client: string, server: string, port: number, run: IperfRun = {}): number {
  const result = inNs(client, iperfArgs(server, port, run), { timeoutMs: ((run.seconds ?? 4) + 10) * 1000 });
  return receivedKbit(result.stdout);
}

/** Several measurements at once (competing flows), each in kbit/s. */
export function iperfConcurrent(flows: ReadonlyArray<{ client: string; server: string; port: number } & IperfRun>): Promise<number[]> {
  return Promise.all(
    flows.map(
      (flow) =>
        new Promise<number>((resolve, reject) => {
          const child = spawn('ip', ['netns', 'exec', flow.client, ...iperfArgs(flow.server, flow.port, flow)], { stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          child.stdout!.on('data', (chunk) => (out += chunk));
          child.once('exit', () => {
            try {
              resolve(receivedKbit(out));
            } catch (error) {
              reject(error as Error);
            }
          });
        }),
    ),
  );
}
