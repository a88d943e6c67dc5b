import { createSocket, type Socket } from 'node:dgram';
import { expect } from 'vitest';
import { AUTH_ERR } from '../src/domains/hotspot/cmcc/cmcc-ac.js';
import {
  PORTAL_ATTR,
  PORTAL_TYPE,
  chapResponse,
  decodePortalPacket,
  encodePortalPacket,
  portalAttribute,
  textAttribute,
  type PortalAttribute,
  type PortalAuthMethod,
  type PortalPacket,
  type PortalType,
  type PortalVersion,
} from '../src/domains/hotspot/cmcc/cmcc-packet.js';

// A CMCC portal server on loopback (UDP): it sends signed requests to the access controller
// and collects what the controller sends back (answers, NTF_LOGOUT).

export const SECRET = 'portal-shared';

/** Resolves once `condition` holds, checking after each turn of the event loop. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

interface Received {
  bytes: Buffer;
  port: number;
}

/** The portal server's side: sends signed requests, collects what the access controller sends. */
export class PortalPeer {
  readonly inbox: Received[] = [];
  private serial = 100;

  private constructor(
    private readonly socket: Socket,
    private readonly version: PortalVersion,
    private readonly secret: string,
  ) {
    socket.on('message', (bytes, remote) => this.inbox.push({ bytes, port: remote.port }));
  }

  static async open(version: PortalVersion, address = '127.0.0.1', secret = SECRET): Promise<PortalPeer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, address, resolve));
    return new PortalPeer(socket, version, secret);
  }

  get port(): number {
    return this.socket.address().port;
  }

  acPort = 0;

  build(
    type: PortalType,
    userIp: string,
    fields: { method?: PortalAuthMethod; reqId?: number; errCode?: number; serialNo?: number; attributes?: PortalAttribute[] } = {},
  ): Buffer {
    return encodePortalPacket(
      {
        version: this.version,
        type,
        method: fields.method ?? 'chap',
        serialNo: fields.serialNo ?? ++this.serial,
        reqId: fields.reqId ?? 0,
        userIp,
        userPort: 0,
        errCode: fields.errCode ?? 0,
        attributes: fields.attributes ?? [],
      },
      { secret: this.secret },
    );
  }

  send(bytes: Buffer): void {
    this.socket.send(bytes, this.acPort, '127.0.0.1');
  }

  /** Waits for the next datagram (in arrival order) and decodes it, checking v2 signatures against `request`. */
  async receive(request?: Buffer): Promise<PortalPacket> {
    await until(() => this.inbox.length > 0);
    const { bytes } = this.inbox.shift()!;
    const requestAuthenticator = request && this.version === 2 ? request.subarray(16, 32) : undefined;
    const decoded = decodePortalPacket(bytes, { version: this.version, secret: this.secret, requestAuthenticator });
    if (!decoded.ok) throw new Error(`the access controller sent a bad packet: ${decoded.code}`);
    return decoded.packet;
  }

  async exchange(request: Buffer): Promise<PortalPacket> {
    this.send(request);
    return this.receive(request);
  }

  /** Challenge then CHAP auth with `password`; returns the ACK_AUTH. */
  async chapLogin(userIp: string, username: string, password: string): Promise<{ ack: PortalPacket; request: Buffer }> {
    const challenge = await this.exchange(this.build(PORTAL_TYPE.REQ_CHALLENGE, userIp));
    expect(challenge.type).toBe(PORTAL_TYPE.ACK_CHALLENGE);
    expect(challenge.errCode).toBe(AUTH_ERR.success);
    const value = portalAttribute(challenge, PORTAL_ATTR.Challenge)!;
    expect(value).toHaveLength(16);
    const request = this.build(PORTAL_TYPE.REQ_AUTH, userIp, {
      reqId: challenge.reqId,
      attributes: [
        textAttribute(PORTAL_ATTR.UserName, username),
        { type: PORTAL_ATTR.Challenge, value },
        { type: PORTAL_ATTR.ChapPassWord, value: chapResponse(challenge.reqId, password, value) },
      ],
    });
    return { ack: await this.exchange(request), request };
  }

  close(): void {
    this.socket.close();
  }
}

