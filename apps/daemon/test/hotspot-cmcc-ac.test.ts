import { afterEach, describe, expect, test } from 'vitest';
import {
  AUTH_ERR,
  CmccAccessController,
  INFO_ERR,
  LOGOUT_ERR,
  type CmccAcHooks,
  type CmccAcOptions,
  type CmccClock,
  type CmccCredentials,
  type CmccTraffic,
} from '../src/domains/hotspot/cmcc/cmcc-ac.js';
import {
  PORTAL_ATTR,
  PORTAL_TYPE,
  chapMatches,
  decodePortalPacket,
  encodePortalPacket,
  portalAttribute,
  textAttribute,
  type PortalVersion,
} from '../src/domains/hotspot/cmcc/cmcc-packet.js';
import { LoginLimiter, PORTAL_GUESS_POLICY } from '../src/plugins/login-limiter.js';
import { openDatabase } from '../src/plugins/db-open.js';
import { PortalPeer, SECRET, until } from './hotspot-cmcc-fixture.js';

/**
 * The access controller against a portal server (hotspot-cmcc-fixture.ts), over UDP on loopback: the
 * challenge/auth/affirm exchange, logout, information, notifications, retransmission, the
 * source filter, refusal of malformed datagrams and the guessing limit.
 */

const RETRANSMIT_MS = 5_000;

/** Timers run only when the test advances time. */
class FakeClock implements CmccClock {
  time = 1_700_000_000_000;
  private timers: Array<{ at: number; run: () => void; live: boolean }> = [];

  now(): number {
    return this.time;
  }

  schedule(run: () => void, ms: number): () => void {
    const timer = { at: this.time + ms, run, live: true };
    this.timers.push(timer);
    return () => {
      timer.live = false;
    };
  }

  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.live && t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.live = false;
      this.time = due.at;
      due.run();
    }
    this.timers = this.timers.filter((t) => t.live);
    this.time = target;
  }
}

/** A gate the credential checks wait at, so that a whole burst is in flight at once. */
class Gate {
  private opened!: () => void;
  readonly passed = new Promise<void>((resolve) => (this.opened = resolve));
  open(): void {
    this.opened();
  }
}

const PASSWORDS: Record<string, string> = { alice: 'Secret123', bob: 'Hunter22' };

/** Local accounts: CHAP checked with the stored password, PAP compared. */
async function checkAccount(credentials: CmccCredentials) {
  const password = PASSWORDS[credentials.username];
  if (password === undefined) return { ok: false as const, reason: 'rejected' as const };
  const ok =
    credentials.method === 'chap'
      ? chapMatches(credentials.reqId, password, credentials.challenge, credentials.chapPassword)
      : credentials.password === password;
  return ok ? { ok: true as const } : { ok: false as const, reason: 'rejected' as const };
}

interface Harness {
  ac: CmccAccessController;
  peer: PortalPeer;
  clock: FakeClock;
  allowed: Set<string>;
  checks: CmccCredentials[];
  traffic: Map<string, CmccTraffic>;
}

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

async function harness(
  version: PortalVersion,
  overrides: Partial<CmccAcOptions> = {},
  authenticate: CmccAcHooks['authenticate'] = checkAccount,
): Promise<Harness> {
  const clock = new FakeClock();
  const peer = await PortalPeer.open(version);
  open.push(peer);
  const allowed = new Set<string>();
  const checks: CmccCredentials[] = [];
  const traffic = new Map<string, CmccTraffic>();
  const ac = new CmccAccessController(
    {
      portalServerIp: '127.0.0.1',
      portalServerPort: peer.port,
      version,
      secret: version === 2 ? SECRET : undefined,
      bindAddress: '127.0.0.1',
      port: 0,
      clock,
      limiter: new LoginLimiter(openDatabase(':memory:'), () => clock.now(), PORTAL_GUESS_POLICY),
      retransmitMs: RETRANSMIT_MS,
      maxRetransmits: 2,
      ...overrides,
    },
    {
      authenticate: (credentials) => {
        checks.push(credentials);
        return authenticate(credentials);
      },
      allow: (userIp) => void allowed.add(userIp),
      deauthorize: (userIp) => void allowed.delete(userIp),
      usage: (userIp) => traffic.get(userIp) ?? null,
    },
  );
  const { port } = await ac.start();
  open.push({ close: () => ac.stop() });
  peer.acPort = port;
  return { ac, peer, clock, allowed, checks, traffic };
}

describe.each([1, 2] as const)('portal protocol version %i', (version) => {
  test('challenge, CHAP auth, affirmation, information and logout', async () => {
    const { ac, peer, allowed, traffic } = await harness(version);
    const { ack } = await peer.chapLogin('10.1.0.20', 'alice', 'Secret123');
    expect(ack.type).toBe(PORTAL_TYPE.ACK_AUTH);
    expect(ack.errCode).toBe(AUTH_ERR.success);
    expect(allowed.has('10.1.0.20')).toBe(true);
    expect(ac.onlineUsers()).toMatchObject([{ userIp: '10.1.0.20', username: 'alice', affirmed: false }]);

    peer.send(peer.build(PORTAL_TYPE.AFF_ACK_AUTH, '10.1.0.20', { serialNo: ack.serialNo, reqId: ack.reqId }));
    await until(() => ac.onlineUsers()[0]?.affirmed === true);

    // Already online: no second challenge.
    expect((await peer.exchange(peer.build(PORTAL_TYPE.REQ_CHALLENGE, '10.1.0.20'))).errCode).toBe(AUTH_ERR.alreadyOnline);

    traffic.set('10.1.0.20', { uplinkBytes: 3 * 1024, downlinkBytes: 70 * 1024 });
    const info = await peer.exchange(peer.build(PORTAL_TYPE.REQ_INFO, '10.1.0.20'));
    expect(info.type).toBe(PORTAL_TYPE.ACK_INFO);
    expect(info.errCode).toBe(INFO_ERR.success);
    expect(portalAttribute(info, PORTAL_ATTR.UserName)?.toString()).toBe('alice');
    expect(portalAttribute(info, PORTAL_ATTR.UpLinkFlux)?.readBigUInt64BE()).toBe(3n);
    expect(portalAttribute(info, PORTAL_ATTR.DownLinkFlux)?.readBigUInt64BE()).toBe(70n);

    const logout = await peer.exchange(peer.build(PORTAL_TYPE.REQ_LOGOUT, '10.1.0.20'));
    expect(logout.type).toBe(PORTAL_TYPE.ACK_LOGOUT);
    expect(logout.errCode).toBe(LOGOUT_ERR.success);
    expect(allowed.has('10.1.0.20')).toBe(false);
    expect(ac.onlineUsers()).toEqual([]);
    expect((await peer.exchange(peer.build(PORTAL_TYPE.REQ_LOGOUT, '10.1.0.20'))).errCode).toBe(LOGOUT_ERR.failed);
    expect((await peer.exchange(peer.build(PORTAL_TYPE.REQ_INFO, '10.1.0.20'))).errCode).toBe(INFO_ERR.failed);
  });

  test('a wrong CHAP password is rejected and its challenge cannot be answered again', async () => {
    const { peer, allowed, checks } = await harness(version);
    const { ack, request } = await peer.chapLogin('10.1.0.21', 'alice', 'wrong');
    expect(ack.errCode).toBe(AUTH_ERR.rejected);
    expect(allowed.size).toBe(0);
    // Same challenge answer under a new serial number: the challenge is spent.
    const decoded = decodePortalPacket(request, { version, secret: SECRET });
    if (!decoded.ok) throw new Error(decoded.code);
    const again = peer.build(PORTAL_TYPE.REQ_AUTH, '10.1.0.21', { reqId: decoded.packet.reqId, attributes: decoded.packet.attributes });
    expect((await peer.exchange(again)).errCode).toBe(AUTH_ERR.failed);
    expect(checks).toHaveLength(1);
    // An unknown user is rejected too.
    expect((await peer.chapLogin('10.1.0.21', 'mallory', 'x')).ack.errCode).toBe(AUTH_ERR.rejected);
  });

  test('PAP auth carries the password in clear', async () => {
    const { peer, allowed, checks } = await harness(version);
    const pap = (password: string) =>
      peer.build(PORTAL_TYPE.REQ_AUTH, '10.1.0.22', {
        method: 'pap',
        attributes: [textAttribute(PORTAL_ATTR.UserName, 'bob'), textAttribute(PORTAL_ATTR.PassWord, password)],
      });
    expect((await peer.exchange(pap('nope'))).errCode).toBe(AUTH_ERR.rejected);
    const ack = await peer.exchange(pap('Hunter22'));
    expect(ack.errCode).toBe(AUTH_ERR.success);
    expect(ack.method).toBe('pap');
    expect(allowed.has('10.1.0.22')).toBe(true);
    expect(checks.map((c) => c.method)).toEqual(['pap', 'pap']);
  });

  test('a request missing its user name or challenge fails without a check', async () => {
    const { peer, checks } = await harness(version);
    const noName = peer.build(PORTAL_TYPE.REQ_AUTH, '10.1.0.23', { method: 'pap', attributes: [textAttribute(PORTAL_ATTR.PassWord, 'x')] });
    expect((await peer.exchange(noName)).errCode).toBe(AUTH_ERR.failed);
    const noChallenge = peer.build(PORTAL_TYPE.REQ_AUTH, '10.1.0.23', {
      reqId: 7,
      attributes: [textAttribute(PORTAL_ATTR.UserName, 'alice'), { type: PORTAL_ATTR.ChapPassWord, value: Buffer.alloc(16) }],
    });
    expect((await peer.exchange(noChallenge)).errCode).toBe(AUTH_ERR.failed);
    expect(checks).toHaveLength(0);
  });

  test('a retransmitted request is answered again without a second check, also while the first is in progress', async () => {
    const gate = new Gate();
    const { ac, peer, checks } = await harness(version, {}, async (credentials) => {
      await gate.passed;
      return checkAccount(credentials);
    });
    const request = peer.build(PORTAL_TYPE.REQ_AUTH, '10.1.0.24', {
      method: 'pap',
      attributes: [textAttribute(PORTAL_ATTR.UserName, 'bob'), textAttribute(PORTAL_ATTR.PassWord, 'Hunter22')],
    });
    peer.send(request);
    await until(() => checks.length === 1);
    peer.send(request);
    await until(() => ac.stats().duplicates === 1);
    gate.open();
    const first = await peer.receive(request);
    expect(first.errCode).toBe(AUTH_ERR.success);
    // Retransmitted after the answer: the same answer, byte for byte.
    const firstBytes = encodePortalPacket(first, { secret: SECRET, requestAuthenticator: request.subarray(16, 32) });
    peer.send(request);
    await until(() => peer.inbox.length === 1);
    expect(peer.inbox[0]!.bytes.equals(firstBytes)).toBe(true);
    expect(checks).toHaveLength(1);
    expect(ac.stats().duplicates).toBe(2);
  });

  test('a REQ_LOGOUT for a timed-out request cancels the auth in progress', async () => {
    const gate = new Gate();
    const { peer, checks, allowed } = await harness(version, {}, async (credentials) => {
      await gate.passed;
      return checkAccount(credentials);
    });
    const request = peer.build(PORTAL_TYPE.REQ_AUTH, '10.1.0.28', {
      method: 'pap',
      attributes: [textAttribute(PORTAL_ATTR.UserName, 'bob'), textAttribute(PORTAL_ATTR.PassWord, 'Hunter22')],
    });
    peer.send(request);
    await until(() => checks.length === 1);
    const cancel = await peer.exchange(peer.build(PORTAL_TYPE.REQ_LOGOUT, '10.1.0.28', { method: 'pap', errCode: 1 }));
    expect(cancel).toMatchObject({ type: PORTAL_TYPE.ACK_LOGOUT, errCode: LOGOUT_ERR.success });
    gate.open();
    expect(await peer.receive(request)).toMatchObject({ type: PORTAL_TYPE.ACK_AUTH, errCode: AUTH_ERR.failed });
    expect(allowed.has('10.1.0.28')).toBe(false);
  });

  test('ACK_AUTH is resent until AFF_ACK_AUTH arrives', async () => {
    const { ac, peer, clock } = await harness(version);
    const { ack, request } = await peer.chapLogin('10.1.0.25', 'alice', 'Secret123');
    clock.advance(RETRANSMIT_MS);
    const resent = await peer.receive(request);
    expect(resent).toMatchObject({ type: PORTAL_TYPE.ACK_AUTH, serialNo: ack.serialNo, errCode: AUTH_ERR.success });
    peer.send(peer.build(PORTAL_TYPE.AFF_ACK_AUTH, '10.1.0.25', { serialNo: ack.serialNo }));
    await until(() => ac.onlineUsers()[0]?.affirmed === true);
    const sent = ac.stats().sent;
    clock.advance(RETRANSMIT_MS * 5);
    expect(ac.stats().sent).toBe(sent);
  });

  test('a user the gateway drops is notified with NTF_LOGOUT until acknowledged', async () => {
    const { ac, peer, clock, allowed } = await harness(version);
    await peer.chapLogin('10.1.0.26', 'alice', 'Secret123');
    expect(await ac.dropUser('10.1.0.26')).toBe(true);
    expect(allowed.has('10.1.0.26')).toBe(false);
    const notice = await peer.receive();
    expect(notice).toMatchObject({ type: PORTAL_TYPE.NTF_LOGOUT, userIp: '10.1.0.26' });
    expect(portalAttribute(notice, PORTAL_ATTR.UserName)?.toString()).toBe('alice');
    clock.advance(RETRANSMIT_MS);
    const again = await peer.receive();
    expect(again.serialNo).toBe(notice.serialNo);
    // The acknowledgement is a response: signed over the notice's authenticator.
    const ack = encodePortalPacket(
      { ...notice, type: PORTAL_TYPE.ACK_NTF_LOGOUT, attributes: [] },
      { secret: SECRET, requestAuthenticator: notice.authenticator },
    );
    peer.send(ack);
    // Datagrams on loopback keep their order: once this answer is back, the acknowledgement was handled.
    expect((await peer.exchange(peer.build(PORTAL_TYPE.REQ_INFO, '10.1.0.26'))).errCode).toBe(INFO_ERR.failed);
    const sent = ac.stats().sent;
    clock.advance(RETRANSMIT_MS * 5);
    expect(ac.stats().sent).toBe(sent);
    expect(await ac.dropUser('10.1.0.26')).toBe(false);
  });

  test('flowcheck drops a user whose traffic stopped growing', async () => {
    const { ac, peer, clock, traffic, allowed } = await harness(version, { flowCheckMs: 60_000 });
    const { ack } = await peer.chapLogin('10.1.0.27', 'alice', 'Secret123');
    peer.send(peer.build(PORTAL_TYPE.AFF_ACK_AUTH, '10.1.0.27', { serialNo: ack.serialNo }));
    await until(() => ac.onlineUsers()[0]?.affirmed === true);
    traffic.set('10.1.0.27', { uplinkBytes: 100, downlinkBytes: 100 });
    clock.advance(60_000);
    traffic.set('10.1.0.27', { uplinkBytes: 200, downlinkBytes: 900 });
    clock.advance(60_000);
    expect(allowed.has('10.1.0.27')).toBe(true);
    clock.advance(60_000);
    await until(() => !allowed.has('10.1.0.27'));
    expect(ac.onlineUsers()).toEqual([]);
    expect(await peer.receive()).toMatchObject({ type: PORTAL_TYPE.NTF_LOGOUT, userIp: '10.1.0.27' });
  });
});

describe('what the access controller refuses', () => {
  test('a v2 request signed with another secret, or tampered with, gets no answer', async () => {
    const { ac, peer } = await harness(2);
    const stranger = await PortalPeer.open(2, '127.0.0.1', 'not-the-secret');
    open.push(stranger);
    stranger.acPort = peer.acPort;
    stranger.send(stranger.build(PORTAL_TYPE.REQ_CHALLENGE, '10.2.0.1'));
    const tampered = peer.build(PORTAL_TYPE.REQ_CHALLENGE, '10.2.0.1');
    tampered.writeUInt8(tampered.readUInt8(10) ^ 1, 10);
    peer.send(tampered);
    await until(() => ac.stats().refused['bad-authenticator'] === 2);
    // A v1 packet to a v2 access controller.
    const v1 = await PortalPeer.open(1);
    open.push(v1);
    v1.acPort = peer.acPort;
    v1.send(v1.build(PORTAL_TYPE.REQ_CHALLENGE, '10.2.0.1'));
    await until(() => ac.stats().refused['bad-version'] === 1);
    expect((await peer.exchange(peer.build(PORTAL_TYPE.REQ_CHALLENGE, '10.2.0.1'))).errCode).toBe(AUTH_ERR.success);
    expect(stranger.inbox).toEqual([]);
    expect(v1.inbox).toEqual([]);
  });

  test('a packet from another address than the portal server is ignored', async () => {
    const { ac, peer } = await harness(1);
    const foreign = await PortalPeer.open(1, '127.0.0.2');
    open.push(foreign);
    foreign.acPort = peer.acPort;
    foreign.send(foreign.build(PORTAL_TYPE.REQ_CHALLENGE, '10.2.0.2'));
    await until(() => ac.stats().foreign === 1);
    expect((await peer.exchange(peer.build(PORTAL_TYPE.REQ_CHALLENGE, '10.2.0.2'))).errCode).toBe(AUTH_ERR.success);
    expect(foreign.inbox).toEqual([]);
  });

  test('malformed, truncated and oversized datagrams are refused and counted', async () => {
    const { ac, peer } = await harness(2);
    const valid = peer.build(PORTAL_TYPE.REQ_AUTH, '10.2.0.3', { method: 'pap', attributes: [textAttribute(PORTAL_ATTR.UserName, 'bob')] });
    peer.send(valid.subarray(0, 20));
    peer.send(valid.subarray(0, valid.length - 1));
    peer.send(Buffer.alloc(4000, 2));
    peer.send(Buffer.from([2, 0x42, 0, 0, ...Buffer.alloc(28)]));
    await until(() => {
      const { refused } = ac.stats();
      return refused['too-short'] === 1 && refused['attribute-truncated'] === 1 && refused['too-long'] === 1 && refused['bad-type'] === 1;
    });
    // Still serving, and nothing was answered before.
    expect((await peer.exchange(peer.build(PORTAL_TYPE.REQ_INFO, '10.2.0.3'))).errCode).toBe(INFO_ERR.failed);
    expect(peer.inbox).toEqual([]);
  });

  test('an unexpected AFF_ACK_AUTH is counted and not answered', async () => {
    const { ac, peer } = await harness(1);
    peer.send(peer.build(PORTAL_TYPE.AFF_ACK_AUTH, '10.2.0.4'));
    await until(() => ac.stats().refused.unexpected === 1);
    expect(peer.inbox).toEqual([]);
  });
});

describe('guessing limit', () => {
  test('a parallel burst for one account checks at most five passwords', async () => {
    const gate = new Gate();
    const { ac, peer, checks } = await harness(1, {}, async (credentials) => {
      await gate.passed;
      return checkAccount(credentials);
    });
    const requests = Array.from({ length: 12 }, (_, i) =>
      peer.build(PORTAL_TYPE.REQ_AUTH, `10.3.0.${i + 1}`, {
        method: 'pap',
        attributes: [textAttribute(PORTAL_ATTR.UserName, 'alice'), textAttribute(PORTAL_ATTR.PassWord, `guess${i}`)],
      }),
    );
    for (const request of requests) peer.send(request);
    // Seven refusals come back at once; five checks wait at the gate.
    await until(() => peer.inbox.length === 7);
    expect(checks).toHaveLength(5);
    gate.open();
    await until(() => peer.inbox.length === 12);
    const answers = await Promise.all(requests.map(() => peer.receive()));
    expect(answers.every((a) => a.errCode === AUTH_ERR.rejected)).toBe(true);
    // The account stays locked: even the right password is refused unchecked.
    const right = peer.build(PORTAL_TYPE.REQ_AUTH, '10.3.0.99', {
      method: 'pap',
      attributes: [textAttribute(PORTAL_ATTR.UserName, 'alice'), textAttribute(PORTAL_ATTR.PassWord, 'Secret123')],
    });
    expect((await peer.exchange(right)).errCode).toBe(AUTH_ERR.rejected);
    expect(ac.stats().checks).toBe(5);
  });

  test('one user address gets one check at a time and at most five wrong ones', async () => {
    const gate = new Gate();
    const { peer, checks } = await harness(1, {}, async (credentials) => {
      await gate.passed;
      return checkAccount(credentials);
    });
    const pap = (username: string) =>
      peer.build(PORTAL_TYPE.REQ_AUTH, '10.3.1.1', {
        method: 'pap',
        attributes: [textAttribute(PORTAL_ATTR.UserName, username), textAttribute(PORTAL_ATTR.PassWord, 'wrong')],
      });
    for (let i = 0; i < 4; i++) peer.send(pap(`user${i}`));
    await until(() => peer.inbox.length === 3);
    expect((await Promise.all([peer.receive(), peer.receive(), peer.receive()])).map((a) => a.errCode)).toEqual([
      AUTH_ERR.busy,
      AUTH_ERR.busy,
      AUTH_ERR.busy,
    ]);
    gate.open();
    expect((await peer.receive()).errCode).toBe(AUTH_ERR.rejected);
    for (let i = 0; i < 4; i++) expect((await peer.exchange(pap(`other${i}`))).errCode).toBe(AUTH_ERR.rejected);
    expect(checks).toHaveLength(5);
    expect((await peer.exchange(pap('bob'))).errCode).toBe(AUTH_ERR.rejected);
    expect(checks).toHaveLength(5);
  });
});
