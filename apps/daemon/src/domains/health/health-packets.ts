/**
 * The frames of the health monitor's four probes, built and parsed here, byte by byte.
 * Everything parsed comes from the wire and may be hostile: every read is bounds-checked, a
 * frame that does not parse is dropped, and nothing but addresses we format ourselves (dotted
 * IPv4, colon MAC) leaves this file; no text of a frame (host names, AC names) is kept.
 */

export const ETHERTYPE = { ipv4: 0x0800, arp: 0x0806, pppoeDiscovery: 0x8863, loop: 0x88b5 } as const;

const BROADCAST = Buffer.from('ffffffffffff', 'hex');
const MAC_TEXT = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;
const IPV4_TEXT = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** Marks our loop probe (IEEE 802 local experimental ethertype), followed by a per-probe nonce. */
const LOOP_MAGIC = Buffer.from('PORTICO-LOOP', 'ascii');
const DHCP_COOKIE = 0x63825363;

export function macBytes(mac: string): Buffer {
  const lower = mac.toLowerCase();
  if (!MAC_TEXT.test(lower)) throw new Error(`not a MAC address: ${JSON.stringify(mac)}`);
  return Buffer.from(lower.replaceAll(':', ''), 'hex');
}

export function macText(bytes: Buffer, at = 0): string {
  return [...bytes.subarray(at, at + 6)].map((b) => b.toString(16).padStart(2, '0')).join(':');
}

export const isIpv4 = (text: string): boolean => IPV4_TEXT.test(text);

export function ipv4Bytes(ip: string): Buffer {
  if (!isIpv4(ip)) throw new Error(`not an IPv4 address: ${JSON.stringify(ip)}`);
  return Buffer.from(ip.split('.').map(Number));
}

export function ipv4Text(bytes: Buffer, at: number): string {
  return [...bytes.subarray(at, at + 4)].join('.');
}

function ethernet(dst: Buffer, src: Buffer, type: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(14);
  dst.copy(head, 0);
  src.copy(head, 6);
  head.writeUInt16BE(type, 12);
  return Buffer.concat([head, payload]);
}

/** The Ethernet payload of a frame of the given type, or null (short frame, other type). */
function payloadOf(frame: Buffer, type: number): Buffer | null {
  if (frame.length < 14 || frame.readUInt16BE(12) !== type) return null;
  return frame.subarray(14);
}

function ipChecksum(header: Buffer): number {
  let sum = 0;
  for (let i = 0; i < header.length; i += 2) sum += header.readUInt16BE(i);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

// --- DHCP: another DHCP server on a LAN -------------------------------------------------

/**
 * A DHCPDISCOVER as a client behind this LAN would send it, with the broadcast flag set so
 * every server answers to the broadcast address. The gateway never requests what is offered,
 * so no server hands out a lease for it.
 */
export function dhcpDiscover(mac: string, xid: number): Buffer {
  const bootp = Buffer.alloc(240);
  bootp[0] = 1; // BOOTREQUEST
  bootp[1] = 1; // Ethernet
  bootp[2] = 6;
  bootp.writeUInt32BE(xid >>> 0, 4);
  bootp.writeUInt16BE(0x8000, 10); // broadcast flag
  macBytes(mac).copy(bootp, 28);
  bootp.writeUInt32BE(DHCP_COOKIE, 236);
  // Message type DISCOVER; parameter list: subnet mask, router, DNS; end.
  const options = Buffer.from([53, 1, 1, 55, 3, 1, 3, 6, 255]);
  const dhcp = Buffer.concat([bootp, options]);
  const udp = Buffer.alloc(8);
  udp.writeUInt16BE(68, 0);
  udp.writeUInt16BE(67, 2);
  udp.writeUInt16BE(8 + dhcp.length, 4);
  // UDP checksum 0: none, as IPv4 allows.
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(20 + 8 + dhcp.length, 2);
  ip[8] = 64;
  ip[9] = 17;
  ipv4Bytes('0.0.0.0').copy(ip, 12);
  ipv4Bytes('255.255.255.255').copy(ip, 16);
  ip.writeUInt16BE(ipChecksum(ip), 10);
  return ethernet(BROADCAST, macBytes(mac), ETHERTYPE.ipv4, Buffer.concat([ip, udp, dhcp]));
}

export interface DhcpOffer {
  /** The server's address: its server identifier option, else the packet's source. */
  serverIp: string;
  serverMac: string;
  offeredIp: string;
}

/** A DHCPOFFER answering our DISCOVER `xid`, or null for anything else. */
export function parseDhcpOffer(frame: Buffer, xid: number): DhcpOffer | null {
  const ip = payloadOf(frame, ETHERTYPE.ipv4);
  if (!ip || ip.length < 20 || ip[0]! >> 4 !== 4) return null;
  const ihl = (ip[0]! & 0x0f) * 4;
  if (ihl < 20 || ip[9] !== 17 || ip.length < ihl + 8) return null;
  const totalLength = ip.readUInt16BE(2);
  if (totalLength < ihl + 8 || totalLength > ip.length) return null;
  const udp = ip.subarray(ihl, totalLength);
  if (udp.readUInt16BE(0) !== 67 || udp.readUInt16BE(2) !== 68) return null;
  const bootp = udp.subarray(8);
  if (bootp.length < 240 || bootp[0] !== 2 || bootp.readUInt32BE(4) !== xid >>> 0 || bootp.readUInt32BE(236) !== DHCP_COOKIE) return null;
  let messageType: number | undefined;
  let serverId: string | undefined;
  for (let at = 240; at < bootp.length; ) {
    const code = bootp[at]!;
    if (code === 255) break;
    if (code === 0) {
      at += 1;
      continue;
    }
    if (at + 1 >= bootp.length) return null;
    const len = bootp[at + 1]!;
    if (at + 2 + len > bootp.length) return null;
    if (code === 53 && len === 1) messageType = bootp[at + 2];
    if (code === 54 && len === 4) serverId = ipv4Text(bootp, at + 2);
    at += 2 + len;
  }
  if (messageType !== 2) return null;
  return { serverIp: serverId ?? ipv4Text(ip, 12), serverMac: macText(frame, 6), offeredIp: ipv4Text(bootp, 16) };
}

// --- PPPoE: a PPPoE server where none should be ----------------------------------------

/** PADI with an empty Service-Name (any service) and our Host-Uniq, which a PADO must echo. */
export function pppoePadi(mac: string, hostUniq: Buffer): Buffer {
  if (hostUniq.length < 1 || hostUniq.length > 32) throw new Error('Host-Uniq is 1 to 32 bytes');
  const tags = Buffer.concat([Buffer.from([0x01, 0x01, 0, 0]), Buffer.from([0x01, 0x03, 0, hostUniq.length]), hostUniq]);
  const head = Buffer.from([0x11, 0x09, 0, 0, 0, 0]);
  head.writeUInt16BE(tags.length, 4);
  return ethernet(BROADCAST, macBytes(mac), ETHERTYPE.pppoeDiscovery, Buffer.concat([head, tags]));
}

/** The access concentrator's MAC of a PADO answering our `hostUniq`, or null. */
export function parsePado(frame: Buffer, hostUniq: Buffer): { acMac: string } | null {
  const pppoe = payloadOf(frame, ETHERTYPE.pppoeDiscovery);
  if (!pppoe || pppoe.length < 6 || pppoe[0] !== 0x11 || pppoe[1] !== 0x07 || pppoe.readUInt16BE(2) !== 0) return null;
  const length = pppoe.readUInt16BE(4);
  if (6 + length > pppoe.length) return null;
  const tags = pppoe.subarray(6, 6 + length);
  let echoed = false;
  for (let at = 0; at + 4 <= tags.length; ) {
    const type = tags.readUInt16BE(at);
    const len = tags.readUInt16BE(at + 2);
    if (at + 4 + len > tags.length) return null;
    if (type === 0x0103 && tags.subarray(at + 4, at + 4 + len).equals(hostUniq)) echoed = true;
    at += 4 + len;
  }
  return echoed ? { acMac: macText(frame, 6) } : null;
}

// --- ARP: an IP address conflict ----------------------------------------------------------

/** An ARP probe (RFC 5227: sender address 0.0.0.0) for `ip`: only a holder of `ip` answers it. */
export function arpProbe(mac: string, ip: string): Buffer {
  const arp = Buffer.alloc(28);
  arp.writeUInt16BE(1, 0);
  arp.writeUInt16BE(ETHERTYPE.ipv4, 2);
  arp[4] = 6;
  arp[5] = 4;
  arp.writeUInt16BE(1, 6); // request
  macBytes(mac).copy(arp, 8);
  ipv4Bytes(ip).copy(arp, 24);
  return ethernet(BROADCAST, macBytes(mac), ETHERTYPE.arp, arp);
}

/**
 * The address an ARP frame's sender claims and its MAC (a request, a reply or an
 * announcement), or null. A probe (sender 0.0.0.0) claims nothing (RFC 5227 §1.1).
 */
export function parseArpSender(frame: Buffer): { ip: string; mac: string } | null {
  const arp = payloadOf(frame, ETHERTYPE.arp);
  if (!arp || arp.length < 28) return null;
  if (arp.readUInt16BE(0) !== 1 || arp.readUInt16BE(2) !== ETHERTYPE.ipv4 || arp[4] !== 6 || arp[5] !== 4) return null;
  const op = arp.readUInt16BE(6);
  if (op !== 1 && op !== 2) return null;
  if (arp.readUInt32BE(14) === 0) return null;
  return { ip: ipv4Text(arp, 14), mac: macText(arp, 8) };
}

/** Who claims `ip` in an ARP frame (a reply, or an announcement of it), or null. */
export function parseArpClaim(frame: Buffer, ip: string): { ip: string; mac: string } | null {
  const claim = parseArpSender(frame);
  return claim && claim.ip === ip ? claim : null;
}

/**
 * The addresses two or more MACs claimed among these ARP frames, each with its MACs sorted:
 * within one listening window that is a conflict (RFC 5227 §2.1.1: an ARP packet whose sender
 * address is one in use by another hardware address), not a lease handed on later.
 */
export function arpConflicts(frames: readonly CapturedFrame[], ignoreMac: (mac: string) => boolean): Array<{ ip: string; macs: string[] }> {
  const claims = new Map<string, Set<string>>();
  for (const { frame } of frames) {
    const claim = parseArpSender(frame);
    if (!claim || ignoreMac(claim.mac)) continue;
    let macs = claims.get(claim.ip);
    if (!macs) claims.set(claim.ip, (macs = new Set()));
    macs.add(claim.mac);
  }
  return [...claims]
    .filter(([, macs]) => macs.size > 1)
    .map(([ip, macs]) => ({ ip, macs: [...macs].sort() }))
    .sort((a, b) => ipv4Bytes(a.ip).compare(ipv4Bytes(b.ip)));
}

// --- Loop: our own frame coming back in ---------------------------------------------------

export function loopProbe(mac: string, nonce: Buffer): Buffer {
  if (nonce.length !== 16) throw new Error('the loop nonce is 16 bytes');
  // Padded to the Ethernet minimum, so no driver pads it differently on the way back.
  const payload = Buffer.alloc(46);
  LOOP_MAGIC.copy(payload, 0);
  nonce.copy(payload, LOOP_MAGIC.length);
  return ethernet(BROADCAST, macBytes(mac), ETHERTYPE.loop, payload);
}

/** Whether the frame is our loop probe with this nonce. */
export function isLoopProbe(frame: Buffer, nonce: Buffer): boolean {
  const payload = payloadOf(frame, ETHERTYPE.loop);
  if (!payload || payload.length < LOOP_MAGIC.length + nonce.length) return false;
  return payload.subarray(0, LOOP_MAGIC.length).equals(LOOP_MAGIC) && payload.subarray(LOOP_MAGIC.length, LOOP_MAGIC.length + nonce.length).equals(nonce);
}

// --- The helper's output ------------------------------------------------------------------

export interface CapturedFrame {
  /** Interface the frame arrived on, as the kernel names it. */
  ifname: string;
  frame: Buffer;
}

const CAPTURE_LINE = /^([A-Za-z0-9_.@:-]{1,15}) ([0-7]) ((?:[0-9a-f]{2}){14,1518})$/;

/** The lines portico-l2probe printed; a line of any other shape is dropped. */
export function parseCapture(stdout: string): CapturedFrame[] {
  const frames: CapturedFrame[] = [];
  for (const line of stdout.split('\n')) {
    const m = CAPTURE_LINE.exec(line);
    if (m) frames.push({ ifname: m[1]!, frame: Buffer.from(m[3]!, 'hex') });
  }
  return frames;
}
