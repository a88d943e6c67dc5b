import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { LinkStatistics, localMidnight, parseMeminfo, sysfsCounters, type LinkCounters } from '../src/domains/health/health-system.js';
import { nameservers } from '../src/domains/health/health-network-probe.js';
import { tempDir } from './daemon-harness.js';

const counters = (rxBytes: number, rxDropped: number): LinkCounters => ({ rxBytes, txBytes: 0, rxPackets: 0, txPackets: 0, rxDropped, txDropped: 0 });

describe('health readings', () => {
  test('memory from /proc/meminfo: page cache and buffers are not "used"; a malformed file gives nothing', () => {
    const text = 'MemTotal:        1000 kB\nMemFree:          200 kB\nBuffers:           50 kB\nCached:           250 kB\nSReclaimable:      0 kB\n';
    expect(parseMeminfo(text)).toEqual({ total: 1024000, used: 512000, cache: 307200, free: 204800, usage: 50 });
    expect(parseMeminfo('MemTotal: lots\n')).toBeNull();
    expect(parseMeminfo('')).toBeNull();
  });

  test('link counters from sysfs: a missing or non-numeric counter, or a device name with a path in it, reads as nothing', () => {
    const sys = tempDir('portico-sysfs-');
    const dir = join(sys, 'eth1', 'statistics');
    mkdirSync(dir, { recursive: true });
    for (const [name, value] of Object.entries({ rx_bytes: 10, tx_bytes: 20, rx_packets: 1, tx_packets: 2, rx_dropped: 3, tx_dropped: 4 })) writeFileSync(join(dir, name), `${value}\n`);
    expect(sysfsCounters(sys, 'eth1')).toEqual({ rxBytes: 10, txBytes: 20, rxPackets: 1, txPackets: 2, rxDropped: 3, txDropped: 4 });
    expect(sysfsCounters(sys, '../eth1')).toBeNull();
    writeFileSync(join(dir, 'rx_dropped'), '-1\n');
    expect(sysfsCounters(sys, 'eth1')).toBeNull();
    expect(sysfsCounters(sys, 'eth9')).toBeNull();
  });

  test('statistics start again at local midnight; a link recreated the same day counts from zero', () => {
    const stats = new LinkStatistics();
    const at = new Date(2025, 5, 1, 23, 59, 0).getTime();
    const link = (c: LinkCounters) => [{ interface: 'lan', device: 'br-lan', counters: c }];
    expect(stats.sample(at, link(counters(1000, 5)))[0]).toMatchObject({ rxBytes: 0, rxDropped: 0, since: at });
    expect(stats.sample(at + 10_000, link(counters(1500, 7)))[0]).toMatchObject({ rxBytes: 500, rxDropped: 2, rxRate: 50 });
    const next = at + 70_000; // 0:00:10
    expect(stats.sample(next, link(counters(1600, 8)))[0]).toMatchObject({ rxBytes: 0, rxDropped: 0, since: localMidnight(next) });
    expect(stats.sample(next + 10_000, link(counters(100, 1)))[0]).toMatchObject({ rxBytes: 100, rxDropped: 1, rxRate: 0, since: localMidnight(next) });
  });

  test('name servers of a resolver file: IPv4 only, nothing else taken', () => {
    expect(nameservers('nameserver 192.0.2.53\nnameserver fe80::1\nnameserver 1.2.3.4; rm\n# nameserver 9.9.9.9\n nameserver 198.51.100.2 \n')).toEqual(['192.0.2.53', '198.51.100.2']);
  });
});
