import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, test } from 'vitest';
import radius from 'radius';
import { accountingPacket, accountingTemplate, verifyAuthenticator, type AccountingFields } from '../src/domains/hotspot/radius/radius-accounting.js';
import { encodeRequest, RadiusTransport, type RadiusAttribute } from '../src/domains/hotspot/radius/radius-client.js';
import { octetsAndGigawords } from '../src/domains/hotspot/radius/radius-reply.js';
import { InterimSchedule } from '../src/domains/hotspot/radius/radius-interim.js';
import { RadiusService } from '../src/domains/hotspot/radius/radius-service.js';
import { hotspotRadius } from '@portico/schema';
import type { HotspotEngine } from '../src/domains/hotspot/hotspot-engine.js';
import type { HotspotSession } from '../src/domains/hotspot/hotspot-types.js';

/**
 * Accounting-Requests from a session's template: the same bytes node-radius encodes for the
 * same attributes (so the same Request Authenticator), octets and gigawords split at 2^32, and
 * a retransmission carrying its Acct-Delay-Time under a new identifier; interim updates due
 * together spread at the steady rate, and sessions restored by the engine are adopted.
 */
const SECRET = 'Acct-Test-Secret';
const identity = {
  user: 'guest-7',
  sid: '0123456789abcdef',
  ip: '192.168.11.57',
  station: '02-AA-00-00-00-07',
  nasIp: '192.168.11.1',
  nasId: 'portico',
  classes: [Buffer.from('c1a55', 'utf8'), Buffer.from([0, 1, 2])],
};

/** The attribute list node-radius gets for the same request, in the template's order. */
function sameAttributes(fields: AccountingFields, delay: number): RadiusAttribute[] {
  const list: RadiusAttribute[] = [
    ['User-Name', identity.user],
    ['Acct-Session-Id', identity.sid],
    ['Framed-IP-Address', identity.ip],
    ['Calling-Station-Id', identity.station],
    ['Acct-Authentic', 'RADIUS'],
    ['NAS-Port-Type', 'Wireless-802.11'],
    ['NAS-IP-Address', identity.nasIp],
    ['NAS-Identifier', identity.nasId],
    ['Called-Station-Id', identity.nasId],
    ...identity.classes.map((c): RadiusAttribute => ['Class', c]),
    ['Acct-Status-Type', fields.status],
    ['Event-Timestamp', new Date(fields.eventTime * 1000)],
  ];
  if (fields.usage) {
    list.push(
      ['Acct-Session-Time', fields.usage.seconds],
      ['Acct-Input-Octets', fields.usage.inOctets],
      ['Acct-Input-Gigawords', fields.usage.inGigawords],
      ['Acct-Output-Octets', fields.usage.outOctets],
      ['Acct-Output-Gigawords', fields.usage.outGigawords],
    );
  }
  if (fields.cause) list.push(['Acct-Terminate-Cause', fields.cause]);
  list.push(['Acct-Delay-Time', delay]);
  return list;
}

describe('accounting packets', () => {
  const template = accountingTemplate(identity);
  const secret = Buffer.from(SECRET);

  test('Start, Interim-Update and Stop are byte for byte what node-radius encodes', () => {
    const up = octetsAndGigawords(5 * 2 ** 30);
    const down = octetsAndGigawords(2 ** 32 + 17);
    const usage = { seconds: 600, inOctets: up.octets, inGigawords: up.gigawords, outOctets: down.octets, outGigawords: down.gigawords };
    const cases: Array<[AccountingFields, number]> = [
      [{ status: 'Start', eventTime: 1_764_000_000 }, 0],
      [{ status: 'Interim-Update', eventTime: 1_764_000_600, usage }, 0],
      [{ status: 'Stop', eventTime: 1_764_000_900, usage, cause: 'Admin-Reset' }, 6],
    ];
    for (const [fields, delay] of cases) {
      const ours = accountingPacket(template, secret, 42, fields, delay);
      expect(ours.equals(encodeRequest('Accounting-Request', SECRET, 42, sameAttributes(fields, delay)))).toBe(true);
    }
    // 5 GiB up: 1 gigaword and 1 GiB; 4 GiB + 17 down: 1 gigaword and 17 octets (RFC 2869 §5.1, 5.2).
    const decoded = radius.decode({ packet: accountingPacket(template, secret, 1, cases[1]![0], 0), secret: SECRET });
    expect(decoded.attributes).toMatchObject({
      'Acct-Input-Gigawords': 1,
      'Acct-Input-Octets': 2 ** 30,
      'Acct-Output-Gigawords': 1,
      'Acct-Output-Octets': 17,
      'Acct-Status-Type': 'Interim-Update',
      'Acct-Delay-Time': 0,
      Class: identity.classes,
    });
  });

  test('values a packet cannot hold are refused, not truncated', () => {
    expect(() => accountingTemplate({ ...identity, user: 'x'.repeat(254) })).toThrow(/1 to 253/);
    expect(() => accountingTemplate({ ...identity, ip: '192.168.11.300' })).toThrow(/IPv4/);
    expect(() => accountingTemplate({ ...identity, nasIp: 'fe80::1' })).toThrow(/IPv4/);
  });

  test('an answer verifies only with the right secret and request, and a lying length is refused', () => {
    const request = accountingPacket(template, secret, 9, { status: 'Start', eventTime: 1 }, 0);
    const decoded = radius.decode({ packet: request, secret: SECRET });
    const response = radius.encode_response({ packet: decoded, code: 'Accounting-Response', secret: SECRET });
    const scratch = Buffer.alloc(4096 + 64);
    expect(verifyAuthenticator(request, response, secret, scratch)).toBe(true);
    expect(verifyAuthenticator(request, response, Buffer.from('other'), scratch)).toBe(false);
    const other = accountingPacket(template, secret, 9, { status: 'Start', eventTime: 2 }, 0);
    expect(verifyAuthenticator(other, response, secret, scratch)).toBe(false);
    const lying = Buffer.from(response);
    lying.writeUInt16BE(4000, 2);
    expect(verifyAuthenticator(request, lying, secret, scratch)).toBe(false);
  });
});

describe('accounting over the transport', () => {
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const s of sockets.splice(0)) s.close();
  });

  test('a retransmission is built again: new identifier, Acct-Delay-Time counting, and its answer is taken', async () => {
    const server = createSocket('udp4');
    sockets.push(server);
    const seen: Array<{ id: number; delay: number }> = [];
    server.on('message', (message, peer) => {
      const packet = radius.decode({ packet: message, secret: SECRET });
      seen.push({ id: message[1]!, delay: packet.attributes['Acct-Delay-Time'] as number });
      // The first copy is lost; the retransmission is answered.
      if (seen.length > 1) server.send(radius.encode_response({ packet, code: 'Accounting-Response', secret: SECRET }), peer.port, peer.address);
    });
    await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
    const transport = new RadiusTransport({ secret: SECRET, timeoutMs: 50, retries: 3 });
    const template = accountingTemplate(identity);
    let delay = 0;
    const outcome = await transport.sendAccounting([{ host: '127.0.0.1', port: server.address().port }], (identifier) =>
      accountingPacket(template, Buffer.from(SECRET), identifier, { status: 'Start', eventTime: 1 }, delay++),
    );
    expect(outcome).toMatchObject({ ok: true, code: 'Accounting-Response' });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.id).not.toBe(seen[0]!.id);
    expect(seen.map((s) => s.delay)).toEqual([0, 1]);
    transport.close();
  });
});

describe('the interim schedule', () => {
  test('sessions due together go out at the steady rate, most overdue first, and spread over one interval', () => {
    const schedule = new InterimSchedule();
    // 100 sessions every 10 s: 10 a second in the steady state.
    for (let i = 0; i < 100; i++) schedule.add(`s${i}`, `10.0.0.${i}`, 10_000 + (i % 2), 10_000);
    const sentAt = new Map<string, number>();
    for (let now = 10_000; now < 40_000; now += 1000) {
      const due = schedule.takeDue(now, 1000);
      expect(due.length).toBeLessThanOrEqual(11);
      expect(due.map((e) => e.due)).toEqual([...due.map((e) => e.due)].sort((a, b) => a - b));
      for (const entry of due) {
        sentAt.set(entry.sid, now);
        schedule.again(entry, now + 10_000, 10_000);
      }
    }
    // Every session sent, and after the first interval each second carries about a tenth.
    expect(sentAt.size).toBe(100);
    const perSecond = new Map<number, number>();
    for (const at of sentAt.values()) perSecond.set(at, (perSecond.get(at) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(11);
  });

  test('a removed session is never handed out; a changed interval changes the rate', () => {
    const schedule = new InterimSchedule();
    schedule.add('a', '10.0.0.1', 0, 10_000);
    schedule.add('b', '10.0.0.2', 0, 10_000);
    schedule.remove('a');
    expect(schedule.takeDue(0, 1000).map((e) => e.sid)).toEqual(['b']);
    expect(schedule.size).toBe(1);
    // Re-added under the same id: only the new entry counts.
    schedule.add('b', '10.0.0.2', 5, 1000);
    expect(schedule.takeDue(4, 1000)).toEqual([]);
    expect(schedule.takeDue(5, 1000).map((e) => e.ip)).toEqual(['10.0.0.2']);
  });
});

describe('interim updates of sessions the service never saw start', () => {
  test('sessions restored by the engine are adopted and updated; one gone from the engine is dropped', async () => {
    const server = createSocket('udp4');
    const statuses: string[] = [];
    server.on('message', (message, peer) => {
      const packet = radius.decode({ packet: message, secret: SECRET });
      statuses.push(`${packet.attributes['Acct-Status-Type']} ${packet.attributes['Acct-Session-Id']}`);
      server.send(radius.encode_response({ packet, code: 'Accounting-Response', secret: SECRET }), peer.port, peer.address);
    });
    await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
    let now = 1_000_000;
    const settings = hotspotRadius.schema.parse({ enabled: true, radiusip: '127.0.0.1', sharekey: SECRET, accoutport: server.address().port, interval: 10, nasid: 'portico' });
    const service = new RadiusService({ settings: () => settings, now: () => now, report: () => undefined, daeHost: '127.0.0.1' });
    const session = (ip: string, sid: string): HotspotSession => ({
      mac: '02:00:00:00:00:01', ip, zone: 'z', kind: 'radius', startedAt: now - 60_000, expiresAt: null, flowLimit: null, bytesUp: 1, bytesDown: 2,
      activeAt: now, upKbps: 0, downKbps: 0, idleSeconds: 0, outside: { user: 'u', sid, cls: '', interim: '' },
    });
    const held = new Map([['10.0.0.1', session('10.0.0.1', 'restored1')], ['10.0.0.2', session('10.0.0.2', 'restored2')]]);
    service.attach({ list: () => [...held.values()], session: (ip: string) => held.get(ip) } as unknown as HotspotEngine);
    try {
      service.interimRound();
      expect(service.counters.interim).toBe(0);
      held.delete('10.0.0.2');
      now += 10_000;
      service.interimRound();
      expect(service.counters.interim).toBe(1);
      await expect.poll(() => statuses).toEqual(['Interim-Update restored1']);
    } finally {
      await service.stop();
      server.close();
    }
  });
});
