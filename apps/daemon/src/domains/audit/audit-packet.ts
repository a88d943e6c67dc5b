/**
 * Parsers of what the data path hands the behaviour audit: a pcap stream of NFLOG records
 * (`tcpdump -i nflog:<group> -w -`), the IPv4/TCP packet inside each, and the HTTP request line
 * with its Host header or the TLS ClientHello's server name inside the first payload bytes.
 *
 * Every byte here comes from a LAN client and may be hostile: every length is checked against
 * the bytes present before it is used, nothing is read past a bound, and the texts that come out
 * are printable ASCII of bounded length (no control character can reach a record or a page).
 */

/** Longest host name kept (DNS limit). */
export const MAX_HOST = 253;
/** Longest path kept; longer ones are cut, since a URL log needs the start. */
export const MAX_PATH = 512;
/** Pcap record bodies larger than this are refused as corrupt (the rule's snaplen is far lower). */
const MAX_RECORD = 65_535;

const LINKTYPE_NFLOG = 239;
const NFULA_PAYLOAD = 9;

export interface TcpPayload {
  src: string;
  dst: string;
  sport: number;
  dport: number;
  payload: Uint8Array;
}

export type UrlHit = { kind: 'http'; host: string; path: string } | { kind: 'tls'; host: string; path: '' };

/**
 * Reads a pcap stream chunk by chunk and yields the records' bytes. Only the little- or
 * big-endian microsecond/nanosecond formats of libpcap are accepted, only link type NFLOG.
 */
export class PcapStreamReader {
  private buffer: Buffer = Buffer.alloc(0);
  private littleEndian: boolean | null = null;
  /** Set when the stream is not one this reader understands; nothing more is read. */
  failed: string | null = null;

  push(chunk: Buffer, onRecord: (record: Buffer) => void): void {
    if (this.failed) return;
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    let offset = 0;
    if (this.littleEndian === null) {
      if (this.buffer.length < 24) return;
      const magic = this.buffer.readUInt32LE(0);
      if (magic === 0xa1b2c3d4 || magic === 0xa1b23c4d) this.littleEndian = true;
      else if (magic === 0xd4c3b2a1 || magic === 0x4d3cb2a1) this.littleEndian = false;
      else return this.fail('not a pcap stream');
      const linktype = this.littleEndian ? this.buffer.readUInt32LE(20) : this.buffer.readUInt32BE(20);
      if ((linktype & 0x0fffffff) !== LINKTYPE_NFLOG) return this.fail(`link type ${linktype} is not NFLOG`);
      offset = 24;
    }
    const le = this.littleEndian;
    while (this.buffer.length - offset >= 16) {
      const captured = le ? this.buffer.readUInt32LE(offset + 8) : this.buffer.readUInt32BE(offset + 8);
      if (captured > MAX_RECORD) return this.fail('record larger than any snaplen');
      if (this.buffer.length - offset - 16 < captured) break;
      onRecord(this.buffer.subarray(offset + 16, offset + 16 + captured));
      offset += 16 + captured;
    }
    // Keep only the unread tail, copied so the consumed chunks can be freed.
    this.buffer = offset === 0 ? this.buffer : Buffer.from(this.buffer.subarray(offset));
  }

  private fail(why: string): void {
    this.failed = why;
    this.buffer = Buffer.alloc(0);
  }
}

/**
 * The packet inside one NFLOG record: a 4-byte header (family, version, group), then TLVs whose
 * length and type are in host byte order (little-endian on the devices this runs on), each padded
 * to 4 bytes. Returns the NFULA_PAYLOAD value, or null.
 */
export function nflogPayload(record: Uint8Array): Uint8Array | null {
  if (record.length < 4) return null;
  const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
  let offset = 4;
  while (offset + 4 <= record.length) {
    const length = view.getUint16(offset, true);
    const type = view.getUint16(offset + 2, true) & 0x7fff;
    if (length < 4 || offset + length > record.length) return null;
    if (type === NFULA_PAYLOAD) return record.subarray(offset + 4, offset + length);
    offset += (length + 3) & ~3;
  }
  return null;
}

function ipv4Text(bytes: Uint8Array, at: number): string {
  return `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`;
}

/** The TCP payload of an IPv4 packet (first fragment only), or null for anything else. */
export function ipv4TcpPayload(packet: Uint8Array): TcpPayload | null {
  if (packet.length < 20 || packet[0]! >> 4 !== 4) return null;
  const ihl = (packet[0]! & 0x0f) * 4;
  if (ihl < 20 || packet.length < ihl + 20) return null;
  if (packet[9] !== 6) return null;
  // A later fragment carries no TCP header.
  if ((((packet[6]! & 0x1f) << 8) | packet[7]!) !== 0) return null;
  const total = (packet[2]! << 8) | packet[3]!;
  // The captured bytes may be cut by the snaplen: the end is whichever comes first.
  const end = Math.min(packet.length, total >= ihl + 20 ? total : packet.length);
  const tcp = ihl;
  const dataOffset = (packet[tcp + 12]! >> 4) * 4;
  if (dataOffset < 20 || tcp + dataOffset > end) return null;
  return {
    src: ipv4Text(packet, 12),
    dst: ipv4Text(packet, 16),
    sport: (packet[tcp]! << 8) | packet[tcp + 1]!,
    dport: (packet[tcp + 2]! << 8) | packet[tcp + 3]!,
    payload: packet.subarray(tcp + dataOffset, end),
  };
}

/** Lower-case host name (letters, digits, `-`, `_`, `.`), optional `:port` dropped; null if not one. */
export function cleanHost(raw: string): string | null {
  let host = raw.trim().toLowerCase();
  const port = /^(.*):(\d{1,5})$/.exec(host);
  if (port && !host.startsWith('[')) host = port[1]!;
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.length === 0 || host.length > MAX_HOST) return null;
  return /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(host) ? host : null;
}

const HTTP_METHODS = ['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'CONNECT', 'TRACE'];
/** Request line and headers are read only this far. */
const HTTP_SCAN = 4096;

/** Visible ASCII only: anything else in a path is percent-encoded, so a record holds no control byte. */
function cleanPath(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) {
    if (out.length >= MAX_PATH) break;
    out += byte > 0x20 && byte < 0x7f && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out.slice(0, MAX_PATH);
}

/**
 * An HTTP/1.x request at the start of a payload: method, path and Host header. The request may
 * be cut by the snaplen: a Host header that is not whole (no line end) is not used.
 */
export function parseHttpRequest(payload: Uint8Array): { host: string; path: string } | null {
  const scan = payload.subarray(0, Math.min(payload.length, HTTP_SCAN));
  const space = scan.indexOf(0x20);
  if (space < 3 || space > 8) return null;
  const method = Buffer.from(scan.subarray(0, space)).toString('latin1');
  if (!HTTP_METHODS.includes(method)) return null;
  const lineEnd = scan.indexOf(0x0a);
  let line = scan.subarray(space + 1, lineEnd === -1 ? scan.length : lineEnd);
  if (line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
  // `<target> HTTP/1.x`; a line cut by the snaplen may lack the version.
  const version = line.lastIndexOf(0x20);
  const target = version > 0 ? line.subarray(0, version) : line;
  if (target.length === 0) return null;
  let path = cleanPath(target);
  let host: string | null = null;
  // An absolute-form target (a proxy request) carries the host itself.
  const absolute = /^https?:\/\/([^/?#]+)(.*)$/i.exec(path);
  if (absolute) {
    host = cleanHost(absolute[1]!.replace(/^.*@/, ''));
    path = absolute[2] || '/';
  }
  if (lineEnd !== -1 && host === null) {
    const lines = Buffer.from(scan.subarray(lineEnd + 1)).toString('latin1').split('\n');
    // The last piece has no line end: it may be cut by the snaplen, so it never counts.
    lines.pop();
    for (const raw of lines) {
      const header = raw.replace(/\r$/, '');
      if (header === '') break;
      const colon = header.indexOf(':');
      if (colon > 0 && header.slice(0, colon).trim().toLowerCase() === 'host') {
        host = cleanHost(header.slice(colon + 1));
        break;
      }
    }
  }
  if (host === null) return null;
  return { host, path };
}

/**
 * The server name of a TLS ClientHello at the start of a payload (SNI, RFC 6066), read from the
 * first record only: ClientHellos that span records or are cut before the extension give null.
 */
export function parseTlsSni(payload: Uint8Array): string | null {
  // Record: handshake (22), version 3.x, length.
  if (payload.length < 5 || payload[0] !== 0x16 || payload[1] !== 0x03) return null;
  const recordEnd = Math.min(payload.length, 5 + ((payload[3]! << 8) | payload[4]!));
  let p = 5;
  const need = (n: number) => p + n <= recordEnd;
  if (!need(4) || payload[p] !== 0x01) return null;
  const helloEnd = Math.min(recordEnd, p + 4 + ((payload[p + 1]! << 16) | (payload[p + 2]! << 8) | payload[p + 3]!));
  p += 4;
  // client_version (2) + random (32)
  if (!need(34)) return null;
  p += 34;
  const skipVector = (lengthBytes: 1 | 2): boolean => {
    if (p + lengthBytes > helloEnd) return false;
    const length = lengthBytes === 1 ? payload[p]! : (payload[p]! << 8) | payload[p + 1]!;
    p += lengthBytes + length;
    return p <= helloEnd;
  };
  // session_id, cipher_suites, compression_methods
  if (!skipVector(1) || !skipVector(2) || !skipVector(1)) return null;
  if (p + 2 > helloEnd) return null;
  const extensionsEnd = Math.min(helloEnd, p + 2 + ((payload[p]! << 8) | payload[p + 1]!));
  p += 2;
  while (p + 4 <= extensionsEnd) {
    const type = (payload[p]! << 8) | payload[p + 1]!;
    const length = (payload[p + 2]! << 8) | payload[p + 3]!;
    const body = p + 4;
    if (body + length > extensionsEnd) return null;
    if (type === 0) {
      // server_name_list: length (2), then entries of type (1), length (2), name.
      let q = body + 2;
      const listEnd = Math.min(body + length, body + 2 + ((payload[body]! << 8) | payload[body + 1]!));
      while (q + 3 <= listEnd) {
        const nameType = payload[q]!;
        const nameLength = (payload[q + 1]! << 8) | payload[q + 2]!;
        if (q + 3 + nameLength > listEnd) return null;
        if (nameType === 0) return cleanHost(Buffer.from(payload.subarray(q + 3, q + 3 + nameLength)).toString('latin1'));
        q += 3 + nameLength;
      }
      return null;
    }
    p = body + length;
  }
  return null;
}

/** The URL a first payload packet names: HTTP Host and path, or the TLS server name. */
export function urlOfPayload(payload: Uint8Array): UrlHit | null {
  if (payload.length === 0) return null;
  if (payload[0] === 0x16) {
    const host = parseTlsSni(payload);
    return host === null ? null : { kind: 'tls', host, path: '' };
  }
  const request = parseHttpRequest(payload);
  return request === null ? null : { kind: 'http', ...request };
}
