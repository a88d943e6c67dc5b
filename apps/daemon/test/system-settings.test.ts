import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { netParam, remoteAccess, systemTime, writeSchema, type AnyEntity, type RemoteAccess } from '@portico/schema';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { checkTimesyncd, checkTimezone, renderTimesyncd, zoneExists } from '../src/domains/system-time/system-time-render.js';
import { sntpReply } from '../src/domains/system-time/system-time-sntp.js';
import { remoteAccessPart } from '../src/domains/remote-access/remote-access-ruleset.js';
import type { NetworkPlan } from '../src/domains/network/network-public.js';
import { renderNetParam } from '../src/domains/net-param/net-param-render.js';

/**
 * The System section's settings through the API on the sim driver (fake clock): time zone
 * checked against the tz database, the timesyncd drop-in and /etc/timezone rendered and
 * checked, the clock set by hand refused where it must be, the LAN NTP server answering,
 * remote access as a ruleset part behind the apply confirmation, network parameters as a
 * sysctl file.
 */

let h: Harness;
let admin: Client;
let ntpPort = 0;
beforeAll(async () => {
  h = await startDaemon({ deps: { 'system-time': { ntpListen: { port: 0, host: '127.0.0.1', onBound: (port) => (ntpPort = port) } } } });
  admin = await adminClient(h);
});
afterAll(async () => {
  await h?.close();
});

const rendered = (target: string) => join(h.stateDir, 'rendered', target);

describe('time', () => {
  test('the zone must be in the tz database; names that could leave it are refused by the schema', async () => {
    expect(zoneExists('Asia/Shanghai')).toBe(true);
    expect(zoneExists('Mars/Phobos')).toBe(false);
    const unknown = json(await post(h.app, admin, '/api/sysconf/time', { timezone: 'Mars/Phobos' }));
    expect(unknown).toMatchObject({ success: false, errors: { timezone: 'validation.timezoneUnknown' } });
    for (const zone of ['../../etc/passwd', 'Asia/Shanghai\nNTP=203.0.113.66', 'Asia/Shanghai;reboot', '/etc/shadow', '']) {
      const reply = json(await post(h.app, admin, '/api/sysconf/time', { timezone: zone }));
      expect(reply.success, zone).toBe(false);
      expect(reply.errors?.timezone, zone).toBeDefined();
    }
    const badServer = json(await post(h.app, admin, '/api/sysconf/time', { ntp_servers: ['pool.ntp.org\nFallbackNTP=evil'] }));
    expect(badServer.errors?.ntp_servers).toBeDefined();
    const none = json(await post(h.app, admin, '/api/sysconf/time', { ntp_client: true, ntp_servers: [] }));
    expect(none.errors?.ntp_servers).toBe('validation.required');
  });

  test('a save renders /etc/timezone and the timesyncd drop-in, both passing their checks', async () => {
    const reply = json(await post(h.app, admin, '/api/sysconf/time', { timezone: 'Europe/Berlin', ntp_client: true, ntp_servers: ['ntp.example.org', '192.0.2.123'] }));
    expect(reply.success).toBe(true);
    expect(readFileSync(rendered('/etc/timezone'), 'utf8')).toBe('Europe/Berlin\n');
    const conf = readFileSync(rendered('/etc/systemd/timesyncd.conf.d/60-portico.conf'), 'utf8');
    expect(conf).toContain('[Time]\nNTP=ntp.example.org 192.0.2.123\nFallbackNTP=\n');
    expect(checkTimesyncd(conf)).toBeNull();
    expect(json(await get(h.app, admin, `/api/sysconf/time?_=${h.clock.ms}`)).data).toMatchObject({ timezone: 'Europe/Berlin', ntp_servers: ['ntp.example.org', '192.0.2.123'] });
    // The checkers refuse what the renderer never writes.
    expect(checkTimezone('Europe/Berlin\nx\n')).not.toBeNull();
    expect(checkTimesyncd('[Time]\nNTP=a\nExtra=1\n')).not.toBeNull();
    expect(checkTimesyncd('[Time]\nNTP=a;b\n')).not.toBeNull();
    expect(() => renderTimesyncd({ timezone: 'UTC', ntp_client: true, ntp_servers: ['a b'], ntp_server: false })).toThrow();
  });

  test('the clock set by hand: bounded, refused while NTP is on and on the simulator', async () => {
    const on = json(await post(h.app, admin, '/api/sysconf/time/set', { action: 'set', time: 1_750_000_000 }));
    expect(on).toMatchObject({ success: false, msg: 'msg.time.ntpOn' });
    expect(json(await post(h.app, admin, '/api/sysconf/time', { ntp_client: false })).success).toBe(true);
    const sim = json(await post(h.app, admin, '/api/sysconf/time/set', { action: 'set', time: 1_750_000_000 }));
    expect(sim).toMatchObject({ success: false, msg: 'msg.time.simulator' });
    for (const time of [0, 5_000_000_000, '1750000000;reboot', 1.5]) {
      const bad = json(await post(h.app, admin, '/api/sysconf/time/set', { action: 'set', time }));
      expect(bad.errors?.time, String(time)).toBeDefined();
    }
    // Without a session nothing is set.
    expect((await post(h.app, null, '/api/sysconf/time/set', { action: 'set', time: 1_750_000_000 })).statusCode).toBe(401);
  });

  test('the LAN NTP server answers with the device clock once switched on, and closes when off', async () => {
    const reply = json(await post(h.app, admin, '/api/sysconf/time', { ntp_client: false, ntp_server: true }));
    expect(reply.success).toBe(true);
    // The daemon opened its socket before the save was answered.
    expect(ntpPort).toBeGreaterThan(0);
    const answer = await ntpQuery(ntpPort);
    expect(answer[0]! & 0x07).toBe(4);
    // NTP off: the clock was set locally, stratum 10 with refid LOCL.
    expect(answer[1]).toBe(10);
    expect(answer.subarray(12, 16).toString('latin1')).toBe('LOCL');
    const seconds = answer.readUInt32BE(40) - 2_208_988_800;
    expect(seconds).toBe(Math.floor(h.clock.ms / 1000));
    expect(json(await post(h.app, admin, '/api/sysconf/time', { ntp_server: false })).success).toBe(true);
    await expect(ntpQuery(ntpPort, 300)).rejects.toThrow(/no answer/);
  });

  test('SNTP replies: only to client requests, with the client transmit time echoed', () => {
    const request = Buffer.alloc(48);
    request[0] = (0 << 6) | (4 << 3) | 3;
    request.writeUInt32BE(0xdeadbeef, 40);
    const reply = sntpReply(request, 1_000, 2_000, 'unsynchronised')!;
    expect(reply[0]! >> 6).toBe(3);
    expect(reply[1]).toBe(16);
    expect(reply.readUInt32BE(24)).toBe(0xdeadbeef);
    const server = Buffer.from(request);
    server[0] = (4 << 3) | 4;
    expect(sntpReply(server, 0, 0, 'local')).toBeNull();
    expect(sntpReply(Buffer.alloc(10), 0, 0, 'local')).toBeNull();
  });
});

function ntpQuery(port: number, timeoutMs = 2000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const request = Buffer.alloc(48);
    request[0] = (4 << 3) | 3;
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error('no answer'));
    }, timeoutMs);
    socket.on('message', (message) => {
      clearTimeout(timer);
      socket.close();
      resolve(message);
    });
    socket.send(request, port, '127.0.0.1');
  });
}

const PLAN = { wans: [{ l3: 'eth0' }, { l3: 'ppp-wan2' }] } as unknown as NetworkPlan;

describe('remote access', () => {
  const base: RemoteAccess = { enabled: true, port: 8443, allowed_ips: [], wan_ping: false };

  test('the WAN port is redirected to the console and accepted only as that port, from the allowed sources', () => {
    const open = remoteAccessPart(base, PLAN, 8080)!;
    expect(open.nat?.hooks?.prerouting_rules).toEqual(['iifname { "eth0", "ppp-wan2" } tcp dport 8443 redirect to :8080']);
    expect(open.filter?.hooks?.wan_to_device).toEqual(['tcp dport 8080 ct original proto-dst 8443 accept']);
    const limited = remoteAccessPart({ ...base, allowed_ips: ['203.0.113.0/24', '198.51.100.7', '192.0.2.10-192.0.2.20', '10.1.0.0/255.255.0.0', '2001:db8::/64'] }, PLAN, 8080)!;
    expect(limited.filter?.sets?.map((s) => [s.name, s.elements])).toEqual([
      ['remote_access_v4', ['203.0.113.0-203.0.113.255', '198.51.100.7', '192.0.2.10-192.0.2.20', '10.1.0.0-10.1.255.255']],
      ['remote_access_v6', ['2001:db8::-2001:db8::ffff:ffff:ffff:ffff']],
    ]);
    expect(limited.filter?.hooks?.wan_to_device).toEqual([
      'ip saddr @remote_access_v4 tcp dport 8080 ct original proto-dst 8443 accept',
      'ip6 saddr @remote_access_v6 tcp dport 8080 ct original proto-dst 8443 accept',
    ]);
    // The console's own port chosen: no redirect.
    expect(remoteAccessPart({ ...base, port: 8080 }, PLAN, 8080)!.nat?.hooks?.prerouting_rules).toEqual([]);
    expect(remoteAccessPart({ ...base, enabled: false }, PLAN, 8080)).toBeNull();
    expect(remoteAccessPart({ ...base, enabled: false, wan_ping: true }, PLAN, 8080)!.filter?.hooks?.wan_to_device).toEqual(['icmp type echo-request accept', 'icmpv6 type echo-request accept']);
  });

  test('hostile allowed addresses and ports are field errors', () => {
    const schema = writeSchema(remoteAccess as unknown as AnyEntity, 'update');
    for (const value of ['8.8.8.8;reboot', '10.0.0.1\nflush ruleset', '10.0.0.0/33', '1.2.3.4-1.2.3.1', '$(id)', ' 10.0.0.1']) {
      expect(schema.safeParse({ ...base, allowed_ips: [value] }).success, value).toBe(false);
    }
    expect(schema.safeParse({ ...base, port: 0 }).success).toBe(false);
    expect(schema.safeParse({ ...base, port: 65_536 }).success).toBe(false);
  });

  test('a save waits for the administrator to confirm it', async () => {
    const reply = json(await post(h.app, admin, '/api/sysconf/remoteaccess', { enabled: true, port: 8443, allowed_ips: ['203.0.113.0/24'] }));
    expect(reply.success).toBe(true);
    expect(reply.data.confirm?.token).toEqual(expect.any(String));
    expect(json(await post(h.app, null, '/api/sysconf/confirm', { token: reply.data.confirm.token })).success).toBe(true);
    expect(json(await get(h.app, admin, `/api/sysconf/remoteaccess?_=${h.clock.ms}`)).data).toMatchObject({ enabled: true, allowed_ips: ['203.0.113.0/24'] });
  });
});

describe('network parameters', () => {
  test('a save renders a sysctl file of the network format; out-of-range values are field errors', async () => {
    expect(existsSync(rendered('/etc/sysctl.d/60-portico-netparam.conf'))).toBe(false);
    const bad = json(await post(h.app, admin, '/api/sysconf/netparam', { ip_default_ttl: 0, tcp_fin_timeout: '30\nkernel.core_pattern = |/tmp/x' }));
    expect(bad.errors).toMatchObject({ ip_default_ttl: expect.any(String), tcp_fin_timeout: expect.any(String) });
    expect(json(await post(h.app, admin, '/api/sysconf/netparam', { tcp_fin_timeout: 30, ip_default_ttl: 128 })).success).toBe(true);
    const file = readFileSync(rendered('/etc/sysctl.d/60-portico-netparam.conf'), 'utf8');
    expect(file).toContain('net.ipv4.tcp_fin_timeout = 30\n');
    expect(file).toContain('net.ipv4.ip_default_ttl = 128\n');
    expect(file).toContain('net.ipv4.tcp_syncookies = 1\n');
    const defaults = netParam.schema.parse({});
    expect(() => renderNetParam({ ...defaults, tcp_fin_timeout: 0 })).toThrow();
  });

  test('the entities of the section are declared with their pages', () => {
    expect([systemTime.module, remoteAccess.module, netParam.module]).toEqual(['clockconfiguration', 'romotevisit', 'networkparameter']);
  });
});

describe('system information and host name', () => {
  test('POST sysconf/system: get answers the information, update sets the host name and renders /etc/hostname', async () => {
    const info = json(await post(h.app, admin, '/api/sysconf/system', { action: 'get' }));
    expect(info.data).toMatchObject({ hostname: expect.any(String), model: expect.any(String), version: expect.any(String), uptime: expect.any(Number) });
    for (const hostname of ['gw;reboot', 'gw\nx', '-gw', 'a.b', 'x'.repeat(64), '']) {
      const bad = json(await post(h.app, admin, '/api/sysconf/system', { action: 'update', hostname }));
      expect(bad.errors?.hostname, hostname).toBeDefined();
    }
    expect(json(await post(h.app, admin, '/api/sysconf/system', { action: 'update', hostname: 'edge-gw1' }))).toMatchObject({ success: true, data: { hostname: 'edge-gw1' } });
    expect(readFileSync(rendered('/etc/hostname'), 'utf8')).toBe('edge-gw1\n');
    expect(json(await get(h.app, admin, `/api/sysconf/hostname?_=${h.clock.ms}`)).data).toEqual({ hostname: 'edge-gw1' });
  });
});
