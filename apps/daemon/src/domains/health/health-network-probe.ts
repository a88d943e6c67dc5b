import { Resolver } from 'node:dns/promises';
import { request } from 'node:http';
import { isIPv4 } from 'node:net';
import { performance } from 'node:perf_hooks';

/** One upstream the monitor measures: a WAN's DNS server, asked for `domain`, then `domain` over HTTP. */
export interface UpstreamTarget {
  interface: string;
  /** An IPv4 address, optionally with `:port` (a test's loopback server). */
  server: string;
  domain: string;
  /** Port of the HTTP fetch; 80 unless a test says otherwise. */
  httpPort?: number;
}

export interface UpstreamTimes {
  dnsTime: number | null;
  httpTime: number | null;
}

/** Response times are measured, so they read the monotonic clock, not the (fakeable) device clock. */
const elapsed = (start: number) => Math.max(0, Math.round(performance.now() - start));

/**
 * Asks the WAN's DNS server for the domain's address and fetches `/` from that address with the
 * domain as Host: both against the configured upstream, never the device's own resolver.
 */
export async function measureUpstream(target: UpstreamTarget, timeoutMs = 3000): Promise<UpstreamTimes> {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  resolver.setServers([target.server]);
  let address: string | undefined;
  let dnsTime: number | null = null;
  const dnsStart = performance.now();
  try {
    address = (await resolver.resolve4(target.domain)).find((a) => isIPv4(a));
    dnsTime = elapsed(dnsStart);
  } catch {
    return { dnsTime: null, httpTime: null };
  }
  if (!address) return { dnsTime, httpTime: null };
  const httpStart = performance.now();
  const httpTime = await new Promise<number | null>((resolve) => {
    const req = request({ host: address, port: target.httpPort ?? 80, path: '/', method: 'GET', headers: { host: target.domain }, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(elapsed(httpStart));
      req.destroy();
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
  return { dnsTime, httpTime };
}

/** Name servers of a resolv.conf-style file, IPv4 only. */
export function nameservers(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*nameserver\s+(\S+)\s*$/.exec(line);
    if (m && isIPv4(m[1]!)) out.push(m[1]!);
  }
  return out;
}
