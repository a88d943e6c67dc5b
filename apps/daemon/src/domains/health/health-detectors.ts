import { randomBytes } from 'node:crypto';
import type { HealthFindingKind } from '@portico/schema';
import type { CommandRunner } from '../../engine/command-runner.js';
import {
  arpProbe,
  dhcpDiscover,
  ETHERTYPE,
  isIpv4,
  isLoopProbe,
  loopProbe,
  arpConflicts,
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
  /** An address conflict between two other devices: the second MAC (the two sorted); else empty. */
  otherMac: string;
}

/** A LAN the probes watch: its configured name, the layer-2 device and its addresses. */
export interface ProbeTarget {
  interface: string;
  device: string;
  addresses: readonly string[];
  /** Other devices' addresses on the LAN (its neighbour table), probed for a conflict between two of them. */
  neighbours?: readonly string[];
}

/** What a probe listens for, filtered in the kernel: an ethertype, or IPv4 UDP to a port. */
export type CaptureFilter = number | { udpPort: number };

/** Sends frames out of `device` (none: only listens) and returns the frames that pass `filters` meanwhile. */
export type L2Probe = (device: string, listenMs: number, frame: Buffer | readonly Buffer[] | null, filters: readonly CaptureFilter[]) => Promise<CapturedFrame[]>;

/** Neighbours probed per interface and round at most: the helper sends at most 1024 frames. */
export const MAX_NEIGHBOUR_PROBES = 1000;

function filterArg(filter: CaptureFilter): string {
  if (typeof filter === 'number') return filter.toString(16).padStart(4, '0');
  return `udp:${filter.udpPort}`;
}

/** How long each probe listens for answers, in milliseconds. */
// A looped LAN storms, and a storm is served by ksoftirqd: our probe may need a while to come round.
export const LISTEN_MS = { dhcp: 1500, pppoe: 800, arp: 800, loop: 1000 } as const;

const DEVICE_NAME = /^[A-Za-z0-9_.@-]{1,15}$/;

/** The probe through the portico-l2probe helper, run with an argument array. */
export function helperProbe(run: CommandRunner, helper: string, prefix: readonly string[] = []): L2Probe {
  return async (device, listenMs, frame, filters) => {
    if (!DEVICE_NAME.test(device)) throw new Error(`not a device name: ${JSON.stringify(device)}`);
    const frames = frame === null ? [] : Buffer.isBuffer(frame) ? [frame] : frame;
    const argv = [...prefix, helper, device, String(listenMs), frames.length ? frames.map((f) => f.toString('hex')).join(',') : '-', ...filters.map(filterArg)];
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

/**
 * The IPv4 neighbours of `device` the kernel holds with a link-layer address, from
 * `ip -j -4 neigh show`. It keeps one MAC per address, so it only says which addresses to
 * probe: the probe's answers show every MAC that holds one.
 */
export async function neighbourAddresses(run: CommandRunner, device: string, prefix: readonly string[] = []): Promise<string[]> {
  if (!DEVICE_NAME.test(device)) throw new Error(`not a device name: ${JSON.stringify(device)}`);
  const result = await run([...prefix, 'ip', '-j', '-4', 'neigh', 'show', 'dev', device], { timeoutMs: 5000 });
  if (result.exitCode !== 0) return [];
  let entries: unknown;
  try {
    entries = JSON.parse(result.stdout);
  } catch {
    return [];
  }
  if (!Array.isArray(entries)) return [];
  const out = new Set<string>();
  for (const e of entries as Array<{ dst?: unknown; lladdr?: unknown }>) {
    if (typeof e.dst === 'string' && isIpv4(e.dst) && typeof e.lladdr === 'string') out.add(e.dst);
  }
  return [...out];
}

/** A finding's identity: the same finding seen again is not news. */
export const detectionKey = (d: Detection) => `${d.kind} ${d.interface} ${d.port} ${d.ip} ${d.mac} ${d.otherMac}`;

const dedupe = (list: Detection[]) => [...new Map(list.map((d) => [detectionKey(d), d])).values()];

/** The nonce of the loop probe still circling each interface's loop, by interface. */
export type LoopProbes = Map<string, Buffer>;

/**
 * The LAN probes of one interface, one after the other. First a loop: a broadcast of our own
 * arriving back on a port. On a loop every broadcast circles until the loop is broken, so
 * while our last probe still comes round no new one is sent (listening is enough), and the
 * other probes, all broadcasts, wait until the loop is gone. Then another DHCP server (a
 * DISCOVER nobody but a server answers), a PPPoE server (a PADI) and an IP address conflict
 * (an ARP probe per address of the interface). `ownMacs` are the gateway's own: an answer
 * from one of them is not another device.
 */
export async function probeInterface(target: ProbeTarget, mac: string, ownMacs: ReadonlySet<string>, probe: L2Probe, loops: LoopProbes = new Map()): Promise<Detection[]> {
  const found: Detection[] = [];
  const base = { interface: target.interface, port: '', ip: '', mac: '', otherMac: '' };
  const foreign = (m: string) => !ownMacs.has(m) && m !== mac;

  const loopPorts = async (nonce: Buffer, frame: Buffer | null) => {
    const seen = new Set((await probe(target.device, LISTEN_MS.loop, frame, [ETHERTYPE.loop])).filter((f) => isLoopProbe(f.frame, nonce)).map((f) => f.ifname));
    // A bridge hands what came back in on a port up to itself too: the port is the news.
    if ([...seen].some((name) => name !== target.device)) seen.delete(target.device);
    return [...seen];
  };
  const circling = loops.get(target.interface);
  let ports = circling ? await loopPorts(circling, null) : [];
  if (ports.length === 0) {
    const nonce = randomBytes(16);
    ports = await loopPorts(nonce, loopProbe(mac, nonce));
    if (ports.length) loops.set(target.interface, nonce);
    else loops.delete(target.interface);
  }
  if (ports.length) return dedupe(ports.map((port) => ({ ...base, kind: 'loop' as const, port })));

  const xid = randomBytes(4).readUInt32BE(0);
  for (const { frame } of await probe(target.device, LISTEN_MS.dhcp, dhcpDiscover(mac, xid), [{ udpPort: 68 }])) {
    const offer = parseDhcpOffer(frame, xid);
    if (offer && foreign(offer.serverMac)) found.push({ ...base, kind: 'dhcpServer', ip: offer.serverIp, mac: offer.serverMac });
  }

  const hostUniq = randomBytes(8);
  for (const { frame } of await probe(target.device, LISTEN_MS.pppoe, pppoePadi(mac, hostUniq), [ETHERTYPE.pppoeDiscovery])) {
    const pado = parsePado(frame, hostUniq);
    if (pado && foreign(pado.acMac)) found.push({ ...base, kind: 'pppoeServer', mac: pado.acMac });
  }

  // One ARP probe per address of ours and per neighbour, answered in one listening window: a
  // foreign claim of ours is a conflict with the gateway; two MACs claiming one other address
  // (answers, or their own requests and announcements meanwhile) a conflict between clients.
  const own = new Set(target.addresses);
  const others = (target.neighbours ?? []).filter((ip) => !own.has(ip)).slice(0, MAX_NEIGHBOUR_PROBES);
  const probed = [...target.addresses, ...others];
  if (probed.length) {
    const frames = await probe(target.device, LISTEN_MS.arp, probed.map((ip) => arpProbe(mac, ip)), [ETHERTYPE.arp]);
    for (const ip of target.addresses) {
      for (const { frame } of frames) {
        const claim = parseArpClaim(frame, ip);
        if (claim && foreign(claim.mac)) found.push({ ...base, kind: 'ipConflict', ip: claim.ip, mac: claim.mac });
      }
    }
    for (const { ip, macs } of arpConflicts(frames, (m) => !foreign(m))) {
      if (own.has(ip)) continue;
      for (let i = 1; i < macs.length; i++) found.push({ ...base, kind: 'ipConflict', ip, mac: macs[0]!, otherMac: macs[i]! });
    }
  }
  return dedupe(found);
}
