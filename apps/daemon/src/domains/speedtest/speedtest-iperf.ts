import type { CommandRunner } from '../../engine/command-runner.js';

export interface IperfRun {
  server: string;
  port: number;
  seconds: number;
  /** The WAN's device the test's socket is bound to (SO_BINDTODEVICE). */
  device: string;
  /** true: the server sends (download); false: the gateway sends (upload). */
  download: boolean;
}

/** The iperf3 client's arguments: one TCP stream, JSON out, bound to the WAN's device. */
export function iperfArgv(options: IperfRun): string[] {
  return [
    'iperf3', '--client', options.server, '--port', String(options.port), '--time', String(options.seconds),
    '--json', '--bind-dev', options.device, '--connect-timeout', '5000',
    // The first second carries TCP's slow start; it is left out of the figure.
    '--omit', '1',
    ...(options.download ? ['--reverse'] : []),
  ];
}

export class IperfFailed extends Error {}

/** The receiver's rate in bits per second from iperf3's JSON report. */
export function iperfRate(stdout: string): number {
  let report: unknown;
  try {
    report = JSON.parse(stdout);
  } catch {
    throw new IperfFailed('iperf3 gave no report');
  }
  const r = report as { error?: unknown; end?: { sum_received?: { bits_per_second?: unknown } } };
  if (typeof r.error === 'string') throw new IperfFailed(r.error.slice(0, 200));
  const rate = r.end?.sum_received?.bits_per_second;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0) throw new IperfFailed('iperf3 report without a received rate');
  return rate;
}

export async function runIperf(run: CommandRunner, options: IperfRun): Promise<number> {
  const result = await run(iperfArgv(options), { timeoutMs: (options.seconds + 20) * 1000 });
  // iperf3 writes its JSON report (with an `error` member) on failure too.
  return iperfRate(result.stdout);
}
