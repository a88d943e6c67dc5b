import { createHash, timingSafeEqual } from 'node:crypto';
import { isIpv4 } from '@portico/schema';

/**
 * The China Mobile WLAN portal protocol's packets (versions 1 and 2), as exchanged over UDP
 * between the portal server and the access controller. Layout: see README.md in this folder.
 */

export const PORTAL_VERSIONS = [1, 2] as const;
export type PortalVersion = (typeof PORTAL_VERSIONS)[number];

export const PORTAL_TYPE = {
  REQ_CHALLENGE: 0x01,
  ACK_CHALLENGE: 0x02,
  REQ_AUTH: 0x03,
  ACK_AUTH: 0x04,
  REQ_LOGOUT: 0x05,
  ACK_LOGOUT: 0x06,
  AFF_ACK_AUTH: 0x07,
  NTF_LOGOUT: 0x08,
  REQ_INFO: 0x09,
  ACK_INFO: 0x0a,
  ACK_NTF_LOGOUT: 0x0e,
} as const;
export type PortalType = (typeof PORTAL_TYPE)[keyof typeof PORTAL_TYPE];
const KNOWN_TYPES = new Set<number>(Object.values(PORTAL_TYPE));

/** The header's PAP/CHAP byte. */
export const PORTAL_AUTH_METHOD = { chap: 0x00, pap: 0x01 } as const;
export type PortalAuthMethod = keyof typeof PORTAL_AUTH_METHOD;

export const PORTAL_ATTR = {
  UserName: 0x01,
  PassWord: 0x02,
  Challenge: 0x03,
  ChapPassWord: 0x04,
  TextInfo: 0x05,
  UpLinkFlux: 0x06,
  DownLinkFlux: 0x07,
  Port: 0x08,
  BasIP: 0x0a,
  SessionID: 0x0b,
} as const;

/** Fixed header sizes: v2 adds the 16-byte Authenticator. */
export const HEADER_BYTES: Record<PortalVersion, number> = { 1: 16, 2: 32 };
export const AUTHENTICATOR_BYTES = 16;
export const CHALLENGE_BYTES = 16;
/**
 * Largest datagram taken in. Real requests carry a name, a password and a challenge, far
 * below this; anything bigger is refused before it is parsed.
 */
export const MAX_PACKET_BYTES = 1024;
/** One attribute's value: its length byte counts the two header bytes too. */
export const MAX_ATTRIBUTE_VALUE_BYTES = 253;

/** Attributes whose value has one fixed size. */
const FIXED_VALUE_BYTES: Record<number, number> = {
  [PORTAL_ATTR.Challenge]: CHALLENGE_BYTES,
  [PORTAL_ATTR.ChapPassWord]: 16,
  [PORTAL_ATTR.UpLinkFlux]: 8,
  [PORTAL_ATTR.DownLinkFlux]: 8,
  [PORTAL_ATTR.BasIP]: 4,
};

export interface PortalAttribute {
  type: number;
  value: Buffer;
}

export interface PortalPacket {
  version: PortalVersion;
  type: PortalType;
  method: PortalAuthMethod;
  serialNo: number;
  reqId: number;
  userIp: string;
  userPort: number;
  errCode: number;
  attributes: PortalAttribute[];
  /** v2 only: the authenticator as received (decode) or computed (encode). */
  authenticator?: Buffer;
}

/** Why a datagram was refused. */
export type PortalDecodeError =
  | 'too-short'
  | 'too-long'
  | 'bad-version'
  | 'bad-type'
  | 'bad-method'
  | 'attribute-truncated'
  | 'attribute-length'
  | 'attribute-value'
  | 'attribute-count'
  | 'bad-authenticator';

export type PortalDecodeResult = { ok: true; packet: PortalPacket } | { ok: false; code: PortalDecodeError };

export interface PortalDecodeOptions {
  /** Only this version is taken. */
  version: PortalVersion;
  /** v2: the shared secret the authenticator is checked against. */
  secret?: string;
  /** v2: for a response, the authenticator of the request it answers; requests use zeros. */
  requestAuthenticator?: Buffer;
}

const ZERO_AUTHENTICATOR = Buffer.alloc(AUTHENTICATOR_BYTES);

/**
 * The v2 authenticator: MD5 over the whole packet with its authenticator field replaced by
 * `base` (16 zero bytes for requests and notifications, the request's authenticator for a
 * response), followed by the shared secret.
 */
export function portalAuthenticator(packet: Buffer, secret: string, base: Buffer = ZERO_AUTHENTICATOR): Buffer {
  const hash = createHash('md5');
  hash.update(packet.subarray(0, 16));
  hash.update(base);
  hash.update(packet.subarray(HEADER_BYTES[2]));
  hash.update(Buffer.from(secret, 'utf8'));
  return hash.digest();
}

function ipv4ToBytes(ip: string): Buffer {
  return Buffer.from(ip.split('.').map((part) => Number(part)));
}

function bytesToIpv4(bytes: Buffer): string {
  return [...bytes].join('.');
}

export interface PortalEncodeOptions {
  /** v2: the shared secret signing the packet. */
  secret?: string;
  /** v2: when answering a request, that request's authenticator. */
  requestAuthenticator?: Buffer;
}

/** Thrown only by `encodePortalPacket` on values this program chose itself: a programming error. */
export class PortalEncodeError extends Error {}

/** Serialises a packet; v2 packets get their authenticator computed. */
export function encodePortalPacket(packet: Omit<PortalPacket, 'authenticator'>, options: PortalEncodeOptions = {}): Buffer {
  const { version } = packet;
  if (!PORTAL_VERSIONS.includes(version)) throw new PortalEncodeError(`version ${version}`);
  if (!isIpv4(packet.userIp)) throw new PortalEncodeError(`user address ${packet.userIp}`);
  if (packet.attributes.length > 255) throw new PortalEncodeError('more than 255 attributes');
  for (const [name, value, max] of [
    ['serial', packet.serialNo, 0xffff],
    ['request id', packet.reqId, 0xffff],
    ['user port', packet.userPort, 0xffff],
    ['error code', packet.errCode, 0xff],
  ] as const) {
    if (!Number.isInteger(value) || value < 0 || value > max) throw new PortalEncodeError(`${name} ${value}`);
  }
  const header = Buffer.alloc(HEADER_BYTES[version]);
  header[0] = version;
  header[1] = packet.type;
  header[2] = PORTAL_AUTH_METHOD[packet.method];
  header[3] = 0;
  header.writeUInt16BE(packet.serialNo, 4);
  header.writeUInt16BE(packet.reqId, 6);
  ipv4ToBytes(packet.userIp).copy(header, 8);
  header.writeUInt16BE(packet.userPort, 12);
  header[14] = packet.errCode;
  header[15] = packet.attributes.length;
  const attributes = packet.attributes.map(({ type, value }) => {
    if (value.length > MAX_ATTRIBUTE_VALUE_BYTES) throw new PortalEncodeError(`attribute ${type} too long`);
    return Buffer.concat([Buffer.from([type, value.length + 2]), value]);
  });
  const bytes = Buffer.concat([header, ...attributes]);
  if (bytes.length > MAX_PACKET_BYTES) throw new PortalEncodeError('packet too long');
  if (version === 2) {
    if (options.secret === undefined) throw new PortalEncodeError('version 2 needs the shared secret');
    portalAuthenticator(bytes, options.secret, options.requestAuthenticator).copy(bytes, 16);
  }
  return bytes;
}

/**
 * Parses and checks one datagram. Never throws: every malformed input yields a code. The
 * packet must end exactly after its AttrNum attributes.
 */
export function decodePortalPacket(bytes: Buffer, options: PortalDecodeOptions): PortalDecodeResult {
  if (bytes.length > MAX_PACKET_BYTES) return { ok: false, code: 'too-long' };
  if (bytes.length < 1) return { ok: false, code: 'too-short' };
  const version = bytes[0];
  if (version !== options.version) return { ok: false, code: 'bad-version' };
  const headerBytes = HEADER_BYTES[options.version];
  if (bytes.length < headerBytes) return { ok: false, code: 'too-short' };
  const type = bytes.readUInt8(1);
  if (!KNOWN_TYPES.has(type)) return { ok: false, code: 'bad-type' };
  const methodByte = bytes.readUInt8(2);
  const method = methodByte === PORTAL_AUTH_METHOD.chap ? 'chap' : methodByte === PORTAL_AUTH_METHOD.pap ? 'pap' : null;
  if (method === null) return { ok: false, code: 'bad-method' };

  const attrNum = bytes.readUInt8(15);
  const attributes: PortalAttribute[] = [];
  let offset = headerBytes;
  for (let i = 0; i < attrNum; i++) {
    if (offset + 2 > bytes.length) return { ok: false, code: 'attribute-truncated' };
    const attrType = bytes.readUInt8(offset);
    const attrLength = bytes.readUInt8(offset + 1);
    if (attrLength < 2) return { ok: false, code: 'attribute-length' };
    if (offset + attrLength > bytes.length) return { ok: false, code: 'attribute-truncated' };
    const value = Buffer.from(bytes.subarray(offset + 2, offset + attrLength));
    const fixed = FIXED_VALUE_BYTES[attrType];
    if (fixed !== undefined && value.length !== fixed) return { ok: false, code: 'attribute-value' };
    attributes.push({ type: attrType, value });
    offset += attrLength;
  }
  // Bytes after the announced attributes: AttrNum and the content disagree.
  if (offset !== bytes.length) return { ok: false, code: 'attribute-count' };

  let authenticator: Buffer | undefined;
  if (options.version === 2) {
    authenticator = Buffer.from(bytes.subarray(16, 32));
    if (options.secret === undefined) return { ok: false, code: 'bad-authenticator' };
    const expected = portalAuthenticator(bytes, options.secret, options.requestAuthenticator);
    if (!timingSafeEqual(expected, authenticator)) return { ok: false, code: 'bad-authenticator' };
  }
  return {
    ok: true,
    packet: {
      version: options.version,
      type: type as PortalType,
      method,
      serialNo: bytes.readUInt16BE(4),
      reqId: bytes.readUInt16BE(6),
      userIp: bytesToIpv4(bytes.subarray(8, 12)),
      userPort: bytes.readUInt16BE(12),
      errCode: bytes.readUInt8(14),
      attributes,
      authenticator,
    },
  };
}

/** The first attribute of a type, or undefined. */
export function portalAttribute(packet: PortalPacket, type: number): Buffer | undefined {
  return packet.attributes.find((attribute) => attribute.type === type)?.value;
}

/** How many attributes of a type a packet carries. */
export function portalAttributeCount(packet: PortalPacket, type: number): number {
  return packet.attributes.filter((attribute) => attribute.type === type).length;
}

/** A text attribute (UserName, PassWord, TextInfo) from UTF-8 bytes. */
export function textAttribute(type: number, text: string): PortalAttribute {
  return { type, value: Buffer.from(text, 'utf8') };
}

/** A flux attribute: 8-byte unsigned count of kilobytes. */
export function fluxAttribute(type: number, bytes: number): PortalAttribute {
  const value = Buffer.alloc(8);
  value.writeBigUInt64BE(BigInt(Math.max(0, Math.floor(bytes / 1024))));
  return { type, value };
}

/**
 * The CHAP response a client with `password` gives to `challenge`: MD5 over the request id's
 * low byte (the CHAP identifier), the password, then the challenge.
 */
export function chapResponse(reqId: number, password: string, challenge: Buffer): Buffer {
  return createHash('md5')
    .update(Buffer.from([reqId & 0xff]))
    .update(Buffer.from(password, 'utf8'))
    .update(challenge)
    .digest();
}

/** Checks a CHAP response in constant time; credential callbacks holding a clear password use it. */
export function chapMatches(reqId: number, password: string, challenge: Buffer, response: Buffer): boolean {
  const expected = chapResponse(reqId, password, challenge);
  return response.length === expected.length && timingSafeEqual(expected, response);
}
