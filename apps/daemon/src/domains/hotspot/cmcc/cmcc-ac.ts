import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { isIpv4, isSafeText } from '@portico/schema';
import type { LoginLimiter } from '../../../plugins/login-limiter.js';
import {
  CHALLENGE_BYTES,
  MAX_ATTRIBUTE_VALUE_BYTES,
  PORTAL_ATTR,
  PORTAL_TYPE,
  decodePortalPacket,
  encodePortalPacket,
  fluxAttribute,
  portalAttribute,
  portalAttributeCount,
  textAttribute,
  type PortalAttribute,
  type PortalDecodeError,
  type PortalPacket,
  type PortalType,
  type PortalVersion,
} from './cmcc-packet.js';

/** The access controller's port the portal server sends its requests to. */
export const CMCC_AC_PORT = 2000;
/** The portal server's port the access controller sends NTF_LOGOUT to. */
export const CMCC_PORTAL_NOTIFY_PORT = 50100;

/** ErrCode of ACK_CHALLENGE and ACK_AUTH. */
export const AUTH_ERR = { success: 0, rejected: 1, alreadyOnline: 2, busy: 3, failed: 4 } as const;
/** ErrCode of ACK_LOGOUT. */
export const LOGOUT_ERR = { success: 0, rejected: 1, failed: 2 } as const;
/** ErrCode of ACK_INFO. */
export const INFO_ERR = { success: 0, unsupported: 1, failed: 2 } as const;
/** ErrCode of a REQ_LOGOUT the portal server sends because its own request timed out. */
export const LOGOUT_REQ_TIMEOUT = 1;

/** Time and timers, injectable so tests drive them. */
export interface CmccClock {
  now(): number;
  /** Runs `run` after `ms`; returns a cancel function. */
  schedule(run: () => void, ms: number): () => void;
}

export const systemClock: CmccClock = {
  now: () => Date.now(),
  schedule(run, ms) {
    const timer = setTimeout(run, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** What the portal server's REQ_AUTH asks the gateway to check. */
export type CmccCredentials =
  | {
      method: 'chap';
      username: string;
      /** The client's response: MD5(chapId, password, challenge); see `chapMatches`. */
      chapPassword: Buffer;
      challenge: Buffer;
      /** The CHAP identifier: the low byte of the request id. */
      chapId: number;
      reqId: number;
      userIp: string;
    }
  | { method: 'pap'; username: string; password: string; userIp: string };

/** `rejected`: the credentials are wrong (counted as a guess); `failed`: they could not be checked. */
export type CmccAuthResult = { ok: true; textInfo?: string } | { ok: false; reason: 'rejected' | 'failed'; textInfo?: string };

export interface CmccTraffic {
  uplinkBytes: number;
  downlinkBytes: number;
}

/** What the hotspot engine provides: the credential check and the dataplane's admit/remove. */
export interface CmccAcHooks {
  authenticate(credentials: CmccCredentials): Promise<CmccAuthResult>;
  allow(userIp: string, username: string): Promise<void> | void;
  deauthorize(userIp: string): Promise<void> | void;
  /** A user's traffic so far; enables ACK_INFO's flux and the idle (flow) check. */
  usage?(userIp: string): CmccTraffic | null;
}

export interface CmccAcOptions {
  /** cmccip: only datagrams from this address are answered. */
  portalServerIp: string;
  portalServerPort?: number;
  version: PortalVersion;
  /** Required for version 2. */
  secret?: string;
  bindAddress?: string;
  port?: number;
  clock?: CmccClock;
  /** Guessing limit: one try reserved per user address and per user name before each check. */
  limiter: Pick<LoginLimiter, 'reserve'>;
  /** How long an issued challenge may be answered. */
  challengeMs?: number;
  /** Resend interval of ACK_AUTH (until AFF_ACK_AUTH) and NTF_LOGOUT (until ACK_NTF_LOGOUT). */
  retransmitMs?: number;
  maxRetransmits?: number;
  /** How long an answer is kept to be resent for a retransmitted request. */
  replayMs?: number;
  /** flowcheck: drop users whose traffic did not grow over this period (needs `usage`). */
  flowCheckMs?: number;
}

export interface CmccOnlineUser {
  userIp: string;
  username: string;
  since: number;
  /** Whether the portal server confirmed the success with AFF_ACK_AUTH. */
  affirmed: boolean;
}

export interface CmccAcStats {
  /** Datagrams from other addresses than the portal server. */
  foreign: number;
  /** Refused datagrams, by reason. */
  refused: Partial<Record<PortalDecodeError | 'unexpected', number>>;
  /** Retransmitted requests: answered again from the cache, or dropped while the first is in progress. */
  duplicates: number;
  /** Credential checks run. */
  checks: number;
  sent: number;
}

interface Challenge {
  value: Buffer;
  reqId: number;
  expiresAt: number;
}

interface OnlineEntry extends CmccOnlineUser {
  serialNo: number;
  stopRetransmit: () => void;
  lastTraffic: number | null;
}

interface ReplayEntry {
  request: Buffer;
  /** Null while the request is being handled. */
  response: Buffer | null;
  expiresAt: number;
}

interface PendingNotice {
  userIp: string;
  authenticator: Buffer | undefined;
  stop: () => void;
}

interface Reply {
  errCode: number;
  reqId?: number;
  attributes?: PortalAttribute[];
  /** Runs once the answer went out (starts retransmission of a success). */
  sent?: (bytes: Buffer, remote: RemoteInfo) => void;
}

const RESPONSE_TYPE: Partial<Record<PortalType, PortalType>> = {
  [PORTAL_TYPE.REQ_CHALLENGE]: PORTAL_TYPE.ACK_CHALLENGE,
  [PORTAL_TYPE.REQ_AUTH]: PORTAL_TYPE.ACK_AUTH,
  [PORTAL_TYPE.REQ_LOGOUT]: PORTAL_TYPE.ACK_LOGOUT,
  [PORTAL_TYPE.REQ_INFO]: PORTAL_TYPE.ACK_INFO,
};

/** Caps on state a flood of requests could grow. */
const MAX_CHALLENGES = 4096;
const MAX_REPLAY_ENTRIES = 4096;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes a text attribute; null when it is not UTF-8 or holds control characters. */
function text(value: Buffer | undefined): string | null {
  if (value === undefined) return null;
  try {
    const decoded = utf8.decode(value);
    return isSafeText(decoded) ? decoded : null;
  } catch {
    return null;
  }
}

/** A TextInfo attribute when the text fits one. */
function textInfo(info: string | undefined): PortalAttribute[] {
  if (!info) return [];
  const attribute = textAttribute(PORTAL_ATTR.TextInfo, info);
  return attribute.value.length <= MAX_ATTRIBUTE_VALUE_BYTES ? [attribute] : [];
}

/**
 * The access-controller side of the China Mobile WLAN portal protocol on one UDP socket: hands
 * out CHAP challenges, has the engine check REQ_AUTH credentials and admit the user, answers
 * logout and information requests and notifies the portal server of users it drops.
 */
export class CmccAccessController {
  private socket: Socket | null = null;
  private readonly clock: CmccClock;
  private readonly challenges = new Map<string, Challenge>();
  private readonly online = new Map<string, OnlineEntry>();
  private readonly checking = new Set<string>();
  /** Users whose portal server gave up on their REQ_AUTH while it was being checked. */
  private readonly abandoned = new Set<string>();
  private readonly replay = new Map<string, ReplayEntry>();
  private readonly notices = new Map<number, PendingNotice>();
  private noticeSerial = randomInt(0, 0x10000);
  private stopFlowCheck: (() => void) | null = null;
  private readonly counters: CmccAcStats = { foreign: 0, refused: {}, duplicates: 0, checks: 0, sent: 0 };

  constructor(
    private readonly options: CmccAcOptions,
    private readonly hooks: CmccAcHooks,
  ) {
    if (!isIpv4(options.portalServerIp)) throw new Error('the portal server address must be IPv4');
    if (options.version === 2 && !options.secret) throw new Error('version 2 needs the shared secret');
    this.clock = options.clock ?? systemClock;
  }

  private get challengeMs(): number {
    return this.options.challengeMs ?? 60_000;
  }

  /** Binds the socket; resolves with the bound address and port. */
  async start(): Promise<{ address: string; port: number }> {
    const socket = createSocket('udp4');
    socket.on('message', (message, remote) => void this.receive(message, remote));
    // A send or receive error on one datagram must not end the daemon; the next one may work.
    socket.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(this.options.port ?? CMCC_AC_PORT, this.options.bindAddress ?? '0.0.0.0', () => {
        socket.off('error', reject);
        resolve();
      });
    });
    this.socket = socket;
    this.scheduleFlowCheck();
    const { address, port } = socket.address();
    return { address, port };
  }

  async stop(): Promise<void> {
    this.stopFlowCheck?.();
    this.stopFlowCheck = null;
    for (const entry of this.online.values()) entry.stopRetransmit();
    for (const notice of this.notices.values()) notice.stop();
    this.notices.clear();
    const socket = this.socket;
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  stats(): CmccAcStats {
    return { ...this.counters, refused: { ...this.counters.refused } };
  }

  onlineUsers(): CmccOnlineUser[] {
    return [...this.online.values()].map(({ userIp, username, since, affirmed }) => ({ userIp, username, since, affirmed }));
  }

  /**
   * The gateway drops a user on its own (idle, flow check, expiry): removes its admission and
   * sends NTF_LOGOUT, resent until the portal server acknowledges it. False if not online.
   */
  async dropUser(userIp: string): Promise<boolean> {
    const entry = this.online.get(userIp);
    if (!entry) return false;
    // Forgotten only once the dataplane let go of it: a failure leaves it listed, to retry.
    await this.hooks.deauthorize(userIp);
    if (this.online.get(userIp) !== entry) return false;
    entry.stopRetransmit();
    this.online.delete(userIp);
    this.notifyLogout(entry);
    return true;
  }

  private refuse(code: PortalDecodeError | 'unexpected'): void {
    this.counters.refused[code] = (this.counters.refused[code] ?? 0) + 1;
  }

  private async receive(message: Buffer, remote: RemoteInfo): Promise<void> {
    if (remote.address !== this.options.portalServerIp) {
      this.counters.foreign++;
      return;
    }
    const { version, secret } = this.options;
    // A notice's acknowledgement is signed over the notice's own authenticator.
    let requestAuthenticator: Buffer | undefined;
    if (message.length >= 6 && message[1] === PORTAL_TYPE.ACK_NTF_LOGOUT) {
      requestAuthenticator = this.notices.get(message.readUInt16BE(4))?.authenticator;
    }
    const decoded = decodePortalPacket(message, { version, secret, requestAuthenticator });
    if (!decoded.ok) {
      this.refuse(decoded.code);
      return;
    }
    const packet = decoded.packet;
    const responseType = RESPONSE_TYPE[packet.type];
    if (responseType === undefined) {
      this.receiveAcknowledgement(packet);
      return;
    }

    const key = `${packet.type}|${packet.serialNo}|${packet.userIp}`;
    const now = this.clock.now();
    const seen = this.replay.get(key);
    if (seen && seen.expiresAt > now && seen.request.equals(message)) {
      this.counters.duplicates++;
      if (seen.response) this.send(seen.response, remote.address, remote.port);
      return;
    }
    this.remember(key, { request: Buffer.from(message), response: null, expiresAt: now + (this.options.replayMs ?? 30_000) });

    let reply: Reply;
    try {
      reply = await this.handle(packet);
    } catch {
      // A hook failed: each answer type's own "failed" code.
      reply = { errCode: packet.type === PORTAL_TYPE.REQ_LOGOUT ? LOGOUT_ERR.failed : packet.type === PORTAL_TYPE.REQ_INFO ? INFO_ERR.failed : AUTH_ERR.failed };
    }
    const bytes = encodePortalPacket(
      {
        version,
        type: responseType,
        method: packet.method,
        serialNo: packet.serialNo,
        reqId: reply.reqId ?? packet.reqId,
        userIp: packet.userIp,
        userPort: 0,
        errCode: reply.errCode,
        attributes: reply.attributes ?? [],
      },
      { secret, requestAuthenticator: packet.authenticator },
    );
    const entry = this.replay.get(key);
    if (entry && entry.request.equals(message)) entry.response = bytes;
    this.send(bytes, remote.address, remote.port);
    reply.sent?.(bytes, remote);
  }

  private remember(key: string, entry: ReplayEntry): void {
    const now = this.clock.now();
    this.replay.delete(key);
    for (const [old, value] of this.replay) {
      if (value.expiresAt <= now || this.replay.size >= MAX_REPLAY_ENTRIES) this.replay.delete(old);
      else break;
    }
    this.replay.set(key, entry);
  }

  private send(bytes: Buffer, address: string, port: number): void {
    const socket = this.socket;
    if (!socket) return;
    this.counters.sent++;
    socket.send(bytes, port, address, () => undefined);
  }

  private handle(packet: PortalPacket): Promise<Reply> | Reply {
    switch (packet.type) {
      case PORTAL_TYPE.REQ_CHALLENGE:
        return this.challenge(packet);
      case PORTAL_TYPE.REQ_AUTH:
        return this.authenticate(packet);
      case PORTAL_TYPE.REQ_LOGOUT:
        return this.logout(packet);
      default:
        return this.info(packet);
    }
  }

  private challenge(packet: PortalPacket): Reply {
    if (packet.method !== 'chap') return { errCode: AUTH_ERR.rejected };
    if (this.online.has(packet.userIp)) return { errCode: AUTH_ERR.alreadyOnline };
    if (this.checking.has(packet.userIp)) return { errCode: AUTH_ERR.busy };
    const now = this.clock.now();
    if (this.challenges.size >= MAX_CHALLENGES) {
      for (const [ip, pending] of this.challenges) if (pending.expiresAt <= now) this.challenges.delete(ip);
      if (this.challenges.size >= MAX_CHALLENGES) return { errCode: AUTH_ERR.busy };
    }
    const issued: Challenge = { value: randomBytes(CHALLENGE_BYTES), reqId: randomInt(1, 0x10000), expiresAt: now + this.challengeMs };
    this.challenges.delete(packet.userIp);
    this.challenges.set(packet.userIp, issued);
    return { errCode: AUTH_ERR.success, reqId: issued.reqId, attributes: [{ type: PORTAL_ATTR.Challenge, value: issued.value }] };
  }

  /** Checks a REQ_AUTH's shape and challenge; the credentials to check, or the refusal. */
  private credentials(packet: PortalPacket): CmccCredentials | Reply {
    const { userIp } = packet;
    const username = text(portalAttribute(packet, PORTAL_ATTR.UserName));
    if (!username || portalAttributeCount(packet, PORTAL_ATTR.UserName) !== 1) return { errCode: AUTH_ERR.failed };
    if (packet.method === 'pap') {
      const raw = portalAttribute(packet, PORTAL_ATTR.PassWord);
      const password = raw === undefined ? null : text(raw);
      if (password === null) return { errCode: AUTH_ERR.failed };
      return { method: 'pap', username, password, userIp };
    }
    // A challenge answers one REQ_AUTH only, right or wrong.
    const issued = this.challenges.get(userIp);
    this.challenges.delete(userIp);
    const chapPassword = portalAttribute(packet, PORTAL_ATTR.ChapPassWord);
    if (!issued || issued.expiresAt <= this.clock.now() || issued.reqId !== packet.reqId || !chapPassword) {
      return { errCode: AUTH_ERR.failed };
    }
    const echoed = portalAttribute(packet, PORTAL_ATTR.Challenge);
    if (echoed && !timingSafeEqual(echoed, issued.value)) return { errCode: AUTH_ERR.failed };
    return { method: 'chap', username, chapPassword, challenge: issued.value, chapId: packet.reqId & 0xff, reqId: packet.reqId, userIp };
  }

  private async authenticate(packet: PortalPacket): Promise<Reply> {
    const { userIp } = packet;
    if (this.online.has(userIp)) return { errCode: AUTH_ERR.alreadyOnline };
    if (this.checking.has(userIp)) return { errCode: AUTH_ERR.busy };
    const credentials = this.credentials(packet);
    if (!('method' in credentials)) return credentials;
    // Reserved before the check, so parallel guesses cannot pass the limit.
    const reservation = this.options.limiter.reserve([`ip:${userIp}`, `user:${credentials.username.toLowerCase()}`]);
    if (!reservation.ok) return { errCode: AUTH_ERR.rejected };

    this.checking.add(userIp);
    this.abandoned.delete(userIp);
    let result: CmccAuthResult;
    try {
      this.counters.checks++;
      result = await this.hooks.authenticate(credentials);
    } catch {
      result = { ok: false, reason: 'failed' };
    } finally {
      this.checking.delete(userIp);
    }
    if (!result.ok) {
      reservation.release(result.reason === 'rejected' ? 'failure' : 'uncounted');
      return { errCode: result.reason === 'rejected' ? AUTH_ERR.rejected : AUTH_ERR.failed, attributes: textInfo(result.textInfo) };
    }
    reservation.release('success');
    if (this.abandoned.delete(userIp)) return { errCode: AUTH_ERR.failed };
    try {
      await this.hooks.allow(userIp, credentials.username);
    } catch {
      return { errCode: AUTH_ERR.failed };
    }
    const entry: OnlineEntry = {
      userIp,
      username: credentials.username,
      since: this.clock.now(),
      affirmed: false,
      serialNo: packet.serialNo,
      stopRetransmit: () => undefined,
      lastTraffic: null,
    };
    this.online.set(userIp, entry);
    return {
      errCode: AUTH_ERR.success,
      attributes: textInfo(result.textInfo),
      // Resent until AFF_ACK_AUTH: the portal server may have lost it.
      sent: (bytes, remote) => {
        entry.stopRetransmit = this.repeat(() => this.send(bytes, remote.address, remote.port), () => undefined);
      },
    };
  }

  /** Runs `resend` every retransmit interval, at most `maxRetransmits` times; returns the stop. */
  private repeat(resend: () => void, gaveUp: () => void): () => void {
    let left = this.options.maxRetransmits ?? 3;
    let cancel: (() => void) | null = null;
    const tick = () => {
      if (left-- <= 0) {
        cancel = null;
        gaveUp();
        return;
      }
      resend();
      cancel = this.clock.schedule(tick, this.options.retransmitMs ?? 5_000);
    };
    cancel = this.clock.schedule(tick, this.options.retransmitMs ?? 5_000);
    return () => {
      cancel?.();
      cancel = null;
    };
  }

  private async logout(packet: PortalPacket): Promise<Reply> {
    const { userIp } = packet;
    if (packet.errCode === LOGOUT_REQ_TIMEOUT) {
      // The portal server gave up waiting for an answer: forget whatever it started.
      this.challenges.delete(userIp);
      if (this.checking.has(userIp)) this.abandoned.add(userIp);
    }
    const entry = this.online.get(userIp);
    if (!entry) return { errCode: packet.errCode === LOGOUT_REQ_TIMEOUT ? LOGOUT_ERR.success : LOGOUT_ERR.failed };
    await this.hooks.deauthorize(userIp);
    entry.stopRetransmit();
    this.online.delete(userIp);
    return { errCode: LOGOUT_ERR.success };
  }

  private info(packet: PortalPacket): Reply {
    const entry = this.online.get(packet.userIp);
    if (!entry) return { errCode: INFO_ERR.failed };
    const attributes = [textAttribute(PORTAL_ATTR.UserName, entry.username)];
    const traffic = this.hooks.usage?.(packet.userIp);
    if (traffic) {
      attributes.push(fluxAttribute(PORTAL_ATTR.UpLinkFlux, traffic.uplinkBytes), fluxAttribute(PORTAL_ATTR.DownLinkFlux, traffic.downlinkBytes));
    }
    return { errCode: INFO_ERR.success, attributes };
  }

  /** AFF_ACK_AUTH and ACK_NTF_LOGOUT: they end a retransmission and are not answered. */
  private receiveAcknowledgement(packet: PortalPacket): void {
    if (packet.type === PORTAL_TYPE.AFF_ACK_AUTH) {
      const entry = this.online.get(packet.userIp);
      if (!entry || entry.serialNo !== packet.serialNo) return this.refuse('unexpected');
      entry.stopRetransmit();
      entry.affirmed = true;
      return;
    }
    if (packet.type === PORTAL_TYPE.ACK_NTF_LOGOUT) {
      const notice = this.notices.get(packet.serialNo);
      if (!notice || notice.userIp !== packet.userIp) return this.refuse('unexpected');
      notice.stop();
      this.notices.delete(packet.serialNo);
      return;
    }
    this.refuse('unexpected');
  }

  private notifyLogout(entry: OnlineEntry): void {
    const { version, secret } = this.options;
    this.noticeSerial = (this.noticeSerial + 1) & 0xffff;
    const serialNo = this.noticeSerial;
    const bytes = encodePortalPacket(
      {
        version,
        type: PORTAL_TYPE.NTF_LOGOUT,
        method: 'chap',
        serialNo,
        reqId: 0,
        userIp: entry.userIp,
        userPort: 0,
        errCode: 0,
        attributes: [textAttribute(PORTAL_ATTR.UserName, entry.username)],
      },
      { secret },
    );
    const port = this.options.portalServerPort ?? CMCC_PORTAL_NOTIFY_PORT;
    this.notices.get(serialNo)?.stop();
    const notice: PendingNotice = {
      userIp: entry.userIp,
      authenticator: version === 2 ? Buffer.from(bytes.subarray(16, 32)) : undefined,
      stop: () => undefined,
    };
    this.notices.set(serialNo, notice);
    this.send(bytes, this.options.portalServerIp, port);
    notice.stop = this.repeat(
      () => this.send(bytes, this.options.portalServerIp, port),
      () => this.notices.delete(serialNo),
    );
  }

  /** flowcheck: a user whose traffic did not grow over one period is dropped. */
  private scheduleFlowCheck(): void {
    const period = this.options.flowCheckMs;
    const usage = this.hooks.usage;
    if (!period || !usage) return;
    const tick = async () => {
      for (const entry of [...this.online.values()]) {
        const traffic = usage(entry.userIp);
        if (!traffic) continue;
        const total = traffic.uplinkBytes + traffic.downlinkBytes;
        const idle = entry.lastTraffic !== null && total <= entry.lastTraffic;
        entry.lastTraffic = total;
        if (idle) await this.dropUser(entry.userIp).catch(() => false);
      }
      if (this.socket) this.stopFlowCheck = this.clock.schedule(() => void tick(), period);
    };
    this.stopFlowCheck = this.clock.schedule(() => void tick(), period);
  }
}
