import { describe, expect, it } from 'vitest';
import {
  ACCOUNTING,
  AUTH_VALIDITY,
  BEHAVIOUR_AUDIT,
  CHART_RANGE_KEYS,
  CHART_RANGES,
  CONNECTION_LIMITS,
  CPE_DEFAULTS,
  EXPIRY_REMINDER,
  FACTORY_NETWORK,
  ISP_GROUPS,
  LOGIN_LOCK,
  OPENVPN_DEFAULTS,
  PRIORITY_CLASSES,
  RADIUS_PORTS,
  ROAMING_THRESHOLD,
  TCP_TIMEOUTS,
  TUNNEL_SERVER_PORT,
  UDP_TIMEOUTS,
  UPLOAD_LIMITS,
  cidrRange,
  durationField,
  ipv4ToInt,
  tunnelPortField,
} from '../src/index.js';

describe('business constants', () => {
  it('keeps every default inside its own range', () => {
    expect(ACCOUNTING.interval).toBeGreaterThanOrEqual(ACCOUNTING.intervalMin);
    expect(ACCOUNTING.interval).toBeLessThanOrEqual(ACCOUNTING.intervalMax);
    expect(ROAMING_THRESHOLD.default).toBeGreaterThanOrEqual(ROAMING_THRESHOLD.min);
    expect(ROAMING_THRESHOLD.default).toBeLessThanOrEqual(ROAMING_THRESHOLD.max);
    expect(tunnelPortField().parse(TUNNEL_SERVER_PORT.default)).toBe(4443);
    expect(tunnelPortField().safeParse(TUNNEL_SERVER_PORT.max + 1).success).toBe(false);
    expect(EXPIRY_REMINDER.timeMin).toBeLessThan(EXPIRY_REMINDER.timeMax);
  });

  it('authentication validity bounds a duration field at 20 days', () => {
    const field = durationField({ maxSeconds: AUTH_VALIDITY.maxSeconds });
    expect(field.safeParse({ value: AUTH_VALIDITY.maxDays, unit: 'days' }).success).toBe(true);
    expect(field.safeParse({ value: AUTH_VALIDITY.maxDays + 1, unit: 'days' }).success).toBe(false);
  });

  it('chart ranges grow from five minutes to a month', () => {
    expect(CHART_RANGE_KEYS).toEqual(['5m', '30m', '1h', '24h', '1w', '1mo']);
    const seconds = CHART_RANGE_KEYS.map((k) => CHART_RANGES[k]);
    expect(seconds).toEqual([...seconds].sort((a, b) => a - b));
    expect(CHART_RANGES['1w']).toBe(7 * 86400);
  });

  it('matches the figures of the specification', () => {
    expect(CONNECTION_LIMITS).toEqual({ systemMaxShown: 1024, perIp: 3000, tcp: 0, udp: 800 });
    expect(Object.values(TCP_TIMEOUTS)).toEqual([300, 1800, 120, 60, 120, 120, 10, 60, 30]);
    expect(UDP_TIMEOUTS).toEqual({ unreplied: 60, assured: 180 });
    expect([RADIUS_PORTS.auth, RADIUS_PORTS.accounting, RADIUS_PORTS.offline]).toEqual([1812, 1813, 3799]);
    expect(OPENVPN_DEFAULTS).toEqual({ port: 1194, proto: 'udp', dev: 'tun', cipher: 'BF-CBC', compress: 'lzo' });
    expect(CPE_DEFAULTS.rebootTime).toEqual({ hour: 4, minute: 30 });
    expect(PRIORITY_CLASSES).toEqual(['Priority', 'Express', 'Normal', 'Bulk']);
    expect(ISP_GROUPS).toHaveLength(9);
    expect(LOGIN_LOCK).toEqual({ attempts: 5, seconds: 300 });
    expect(BEHAVIOUR_AUDIT.cleanAbovePercent).toBe(80);
    expect(UPLOAD_LIMITS.logoBytes).toBe(30 * 1024);
  });

  it('the factory network is 192.168.11.x', () => {
    expect(cidrRange(FACTORY_NETWORK)).toEqual({ first: ipv4ToInt('192.168.11.0'), last: ipv4ToInt('192.168.11.255') });
  });
});
