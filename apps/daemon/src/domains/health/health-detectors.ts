import { randomBytes } from 'node:crypto';
import type { HealthFindingKind } from '@portico/schema';
import type { CommandRunner } from '../../engine/command-runner.js';
import {
  arpProbe,
  dhcpDiscover,
  ETHERTYPE,
  isLoopProbe,
  loopProbe,
  parseArpClaim,
  parseCapture,
  parseDhcpOffer,
  parsePado,
  pppoePadi,
  type CapturedFrame,
} from './health-packets.js';

/** One thing the LAN probes found, before it has a first and last time. */
export interface Detection {
  kind: HealthFindingKind;
  interface: string;
  port: string;
  ip: string;
  mac: string;
}

/** A LAN the probes watch: its configured name, the layer-2 device and its addresses. */
export interface ProbeTarget {
  interface: string;
  device: string;
  addresses: readonly string[];
}

/** Sends one frame out of `device` and returns the frames of `types` that arrive meanwhile. */
export type L2Probe = (device: string, listenMs: number, frame: Buffer, types: readonly number[]) => Promise<CapturedFrame[]>;

/** How long each probe listens for answers, in milliseconds. */
export const LISTEN_MS = { dhcp: 2000, pppoe: 1000, arp: 1000, loop: 500 } as const;

const DEVICE_NAME = /^[A-Za-z0-9_.@-]{1,15}$/;

/** The probe through the portico-l2probe helper, run with an argument array. */
export function helperProbe(run: CommandRunner, helper: string, prefix: readonly string[] = []): L2Probe {
  return async (device, listenMs, frame, types) => {
    if (!DEVICE_NAME.test(device)) throw new Error(`not a device name: ${JSON.stringify(device)}`);
    const argv = [...prefix, helper, device, String(listenMs), frame.toString('hex'), ...types.map((t) => t.toString(16).padStart(4, '0'))];
    const result = await run(argv, { timeoutMs: listenMs + 5000 });
    if (result.exitCode !== 0) throw new Error(`portico-l2probe on ${device}: ${result.stderr.slice(0, 200)}`);
    return parseCapture(result.stdout);
  };
}

/** The device's links: name and MAC, from `ip -j link show`. */
export async function linkMacs(run: CommandRunner, prefix: readonly string[] = []): Promise<Map<string, string>> {
  const result = await run([...prefix, 'ip', '-j', 'link', 'show'], { timeoutMs: 5000 });
  const macs = new Map<string, string>();
  if (result.exitCode !== 0) return macs;
  let links: unknown;
  try {
    links = JSON.parse(result.stdout);
  } catch {
    return macs;
  }
  if (!Array.isArray(links)) return macs;
  for (const link of links as Array<{ ifname?: unknown; address?: unknown; link_type?: unknown }>) {
    if (typeof link.ifname === 'string' && typeof link.address === 'string' && link.link_type === 'ether' && /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/.test(link.address)) {
      macs.set(link.ifname, link.address);
    }
  }
  return macs;
}

const dedupe = (list: Detection[]) => [...new Map(list.map((d) => [`${d.kind} ${d.interface} ${d.port} ${d.ip} ${d.mac}`, d])).values()];

/**
 * The four LAN probes of one interface, one after the other: another DHCP server (a DISCOVER
 * nobody but a server answers), a PPPoE server (a PADI), an IP address conflict (an ARP probe
 * per address of the interface) and a loop (a broadcast of our own that comes back in).
 * `ownMacs` are the gateway's own: an answer from one of them is not another device.
 */
export async function probeInterface(target: ProbeTarget, mac: string, ownMacs: ReadonlySet<string>, probe: L2Probe): Promise<Detection[]> {
  const found: Detection[] = [];
  const base = { interface: target.interface, port: '', ip: '', mac: '' };
  const foreign = (m: string) => !ownMacs.has(m) && m !== mac;

  const xid = randomBytes(4).readUInt32BE(0);
  for (const { frame } of await probe(target.device, LISTEN_MS.dhcp, dhcpDiscover(mac, xid), [ETHERTYPE.ipv4])) {
    const offer = parseDhcpOffer(frame, xid);
    if (offer && foreign(offer.serverMac)) found.push({ ...base, kind: 'dhcpServer', ip: offer.serverIp, mac: offer.serverMac });
  }

  const hostUniq = randomBytes(8);
  for (const { frame } of await probe(target.device, LISTEN_MS.pppoe, pppoePadi(mac, hostUniq), [ETHERTYPE.pppoeDiscovery])) {
    const pado = parsePado(frame, hostUniq);
    if (pado && foreign(pado.acMac)) found.push({ ...base, kind: 'pppoeServer', mac: pado.acMac });
  }

  for (const ip of target.addresses) {
    for (const { frame } of await probe(target.device, LISTEN_MS.arp, arpProbe(mac, ip), [ETHERTYPE.arp])) {
      const claim = parseArpClaim(frame, ip);
      if (claim && foreign(claim.mac)) found.push({ ...base, kind: 'ipConflict', ip: claim.ip, mac: claim.mac });
    }
  }

  // Sent with our own source address: a bridge of ours drops it when it comes back, so the
  // probe itself never circles; seen arriving on any port, the LAN has a loop.
  const nonce = randomBytes(16);
  for (const { ifname, frame } of await probe(target.device, LISTEN_MS.loop, loopProbe(mac, nonce), [ETHERTYPE.loop])) {
    if (isLoopProbe(frame, nonce)) found.push({ ...base, kind: 'loop', port: ifname });
  }
  return dedupe(found);
}
