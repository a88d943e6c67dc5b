import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CHART_RANGE_KEYS,
  dashboardSchema,
  loadSeriesSchema,
  netifListSchema,
  onlineUserListSchema,
  registrationSchema,
  systemInfoSchema,
} from '@portico/schema';
import type { LiveStatusSource } from '../src/drivers/live-source.js';
import { createLinuxLive, LINUX_HISTORY_FILE, LINUX_IDENTITY_FILE } from '../src/drivers/linux/linux-live.js';
import {
  parseCpuinfo,
  parseDefaultRoutes,
  parseMeminfo,
  parseNetDev,
  routeHexToIpv4,
} from '../src/drivers/linux/linux-proc.js';

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const MACHINE_ID = '4f1c2a9be0d34c5f8a7b6c5d4e3f2a1b';

let root: string;
let stateDir: string;
const sources: LiveStatusSource[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'portico-linux-'));
  stateDir = join(root, 'state');
  mkdirSync(stateDir);
});

afterEach(() => {
  while (sources.length > 0) sources.pop()!.stop();
  vi.useRealTimers();
  rmSync(root, { recursive: true, force: true });
});

function put(path: string, content: string) {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
}

function netDev(eth0: [number, number], eth1: [number, number]) {
  const line = (name: string, [rx, tx]: [number, number]) =>
    `${name.padStart(6)}: ${rx} 100 0 0 0 0 0 0 ${tx} 90 0 0 0 0 0 0`;
  return [
    'Inter-|   Receive                                                |  Transmit',
    ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed',
    line('lo', [5000, 5000]),
    line('eth0', eth0),
    line('eth1', eth1),
    '',
  ].join('\n');
}

/** A small gateway: eth0 to the provider (default route), eth1 to the LAN. */
function writeFixture() {
  put('proc/loadavg', '0.52 0.58 0.59 1/467 12345\n');
  put('proc/stat', 'cpu  1000 0 500 8000 500 0 0 0 0 0\ncpu0 1000 0 500 8000 500 0 0 0 0 0\nintr 1 2 3\n');
  put('proc/meminfo', 'MemTotal:        2048000 kB\nMemFree:          100000 kB\nMemAvailable:     512000 kB\nBuffers:           20000 kB\n');
  put('proc/uptime', '12345.67 40000.00\n');
  put('proc/net/dev', netDev([1_000_000, 200_000], [300_000, 900_000]));
  put(
    'proc/net/route',
    [
      'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
      'eth0\t00000000\t0100710A\t0003\t0\t0\t100\t00000000\t0\t0\t0',
      'eth0\t0000710A\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0',
      'eth1\t000BA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0',
      '',
    ].join('\n'),
  );
  put(
    'proc/net/arp',
    [
      'IP address       HW type     Flags       HW address            Mask     Device',
      '192.168.11.120   0x1         0x2         aa:bb:cc:00:00:02     *        eth1',
      '192.168.11.101   0x1         0x2         AA:BB:CC:00:00:01     *        eth1',
      '192.168.11.130   0x1         0x0         00:00:00:00:00:00     *        eth1',
      '10.113.0.1       0x1         0x2         00:00:5e:00:01:01     *        eth0',
      '',
    ].join('\n'),
  );
  put('proc/sys/net/netfilter/nf_conntrack_count', '3\n');
  put('proc/sys/net/netfilter/nf_conntrack_max', '65536\n');
  put(
    'proc/net/nf_conntrack',
    [
      'ipv4     2 tcp      6 431999 ESTABLISHED src=192.168.11.101 dst=93.184.216.34 sport=51234 dport=443 packets=10 bytes=1000 src=93.184.216.34 dst=10.113.0.5 sport=443 dport=51234 packets=12 bytes=9000 [ASSURED] mark=0 zone=0 use=2',
      'ipv4     2 udp      17 170 src=192.168.11.101 dst=1.1.1.1 sport=5353 dport=53 packets=1 bytes=60 src=1.1.1.1 dst=10.113.0.5 sport=53 dport=5353 packets=1 bytes=120 [ASSURED] mark=0 zone=0 use=2',
      'ipv4     2 tcp      6 100 ESTABLISHED src=192.168.11.120 dst=8.8.8.8 sport=40000 dport=443 packets=3 bytes=500 src=8.8.8.8 dst=10.113.0.5 sport=443 dport=40000 packets=2 bytes=700 [ASSURED] mark=0 zone=0 use=2',
      '',
    ].join('\n'),
  );
  put('proc/cpuinfo', 'processor\t: 0\nmodel name\t: Test CPU @ 2.0GHz\n\nprocessor\t: 1\nmodel name\t: Test CPU @ 2.0GHz\n');
  for (const [name, mac, mtu, state] of [
    ['eth0', '52:54:00:aa:00:01', '1500', 'up'],
    ['eth1', '52:54:00:aa:00:02', '1500', 'up'],
    ['lo', '00:00:00:00:00:00', '65536', 'unknown'],
  ] as const) {
    put(`sys/class/net/${name}/address`, `${mac}\n`);
    put(`sys/class/net/${name}/mtu`, `${mtu}\n`);
    put(`sys/class/net/${name}/operstate`, `${state}\n`);
  }
  put('sys/class/net/eth1/carrier', '1\n');
  put('sys/class/dmi/id/product_name', 'Test Appliance\n');
  put('etc/machine-id', `${MACHINE_ID}\n`);
  put('leases', '1741000000 aa:bb:cc:00:00:01 192.168.11.101 <b>laptop</b> 01:aa:bb:cc:00:00:01\n1741000000 aa:bb:cc:00:00:02 192.168.11.120 * *\n');
}

const addresses = (): NodeJS.Dict<os.NetworkInterfaceInfo[]> => ({
  eth0: [{ address: '10.113.0.5', netmask: '255.255.255.0', family: 'IPv4', mac: '52:54:00:aa:00:01', internal: false, cidr: '10.113.0.5/24' }],
  eth1: [
    { address: 'fe80::1', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '52:54:00:aa:00:02', internal: false, cidr: 'fe80::1/64', scopeid: 3 },
    { address: '192.168.11.1', netmask: '255.255.255.0', family: 'IPv4', mac: '52:54:00:aa:00:02', internal: false, cidr: '192.168.11.1/24' },
  ],
});

function linuxAt(start = T0, extra: { etcRoot?: string } = {}) {
  const clock = { t: start };
  const live = createLinuxLive({
    procRoot: join(root, 'proc'),
    sysRoot: join(root, 'sys'),
    etcRoot: extra.etcRoot ?? join(root, 'etc'),
    stateDir,
    now: () => clock.t,
    networkInterfaces: addresses,
    dhcpLeasesFile: join(root, 'leases'),
  });
  sources.push(live);
  return { live, clock };
}

/** The second reading, five seconds later: CPU busy 400 of 1000 jiffies, traffic on both ports. */
function writeSecondSample() {
  put('proc/stat', 'cpu  1300 0 600 8500 600 0 0 0 0 0\n');
  put('proc/net/dev', netDev([6_000_000, 700_000], [1_300_000, 5_900_000]));
}

describe('Linux live status from /proc and /sys', () => {
  it('computes CPU, memory, connections and WAN state from two readings', () => {
    writeFixture();
    const { live, clock } = linuxAt();
    // One reading only: the average since boot (1500 busy of 10000).
    expect(live.dashboard().system.cpu).toBe(15);
    writeSecondSample();
    clock.t += 5000;
    const dashboard = dashboardSchema.parse(live.dashboard());
    expect(dashboard.system).toMatchObject({
      cpu: 40,
      memory: 75,
      memory_total: 2048000 * 1024,
      memory_used: 1536000 * 1024,
      conn_count: 3,
      conn_max: 65536,
      uptime: 12345,
      wanconnect: 1,
    });
    expect(dashboard.board.model).toBe('Test Appliance');
    expect(dashboard.user).toMatchObject({ online: 2, preauth: 0, auth: 0, total: 2 });
    expect(dashboard.user.topflows).toEqual([
      { ip: '192.168.11.101', flow: 1000 + 9000 + 60 + 120 },
      { ip: '192.168.11.120', flow: 500 + 700 },
    ]);
  });

  it('lists interfaces with roles, addresses, counters and rates from /proc/net/dev deltas', () => {
    writeFixture();
    const { live, clock } = linuxAt();
    writeSecondSample();
    clock.t += 5000;
    const list = netifListSchema.parse(live.netif());
    expect(list.total).toBe(2);
    expect(list.items.map((i) => i.ifname)).toEqual(['eth0', 'eth1']);
    expect(list.items[0]).toEqual({
      ifname: 'eth0',
      role: 'wan',
      status: 'up',
      proto: 'static',
      ipaddr: '10.113.0.5',
      netmask: '255.255.255.0',
      gateway: '10.113.0.1',
      mac: '52:54:00:aa:00:01',
      mtu: 1500,
      rx_bytes: 6_000_000,
      tx_bytes: 700_000,
      rx_rate: 1_000_000,
      tx_rate: 100_000,
      uptime: 5,
    });
    expect(list.items[1]).toMatchObject({
      role: 'lan',
      ipaddr: '192.168.11.1',
      gateway: '',
      rx_rate: 200_000,
      tx_rate: 1_000_000,
    });
  });

  it('reports a link down and the device offline when the WAN port loses its carrier', () => {
    writeFixture();
    put('sys/class/net/eth0/operstate', 'down\n');
    const { live } = linuxAt();
    expect(live.netif().items[0]).toMatchObject({ ifname: 'eth0', status: 'down', uptime: 0 });
    expect(live.dashboard().system.wanconnect).toBe(0);
  });

  it('lists complete LAN neighbours as online users with names, connections and bytes', () => {
    writeFixture();
    const { live, clock } = linuxAt();
    clock.t += 30_000;
    const users = onlineUserListSchema.parse(live.onlineUsers());
    expect(users.total).toBe(2);
    expect(users.items[0]).toEqual({
      ip: '192.168.11.101',
      mac: 'aa:bb:cc:00:00:01',
      hostname: '<b>laptop</b>',
      username: '',
      auth: 'none',
      up_rate: 0,
      down_rate: 0,
      up_bytes: 1060,
      down_bytes: 9120,
      online_time: 30,
      conn_count: 2,
    });
    expect(users.items[1]).toMatchObject({ ip: '192.168.11.120', hostname: '', conn_count: 1, online_time: 30 });

    // Five seconds on, the first client's open connection moved 5000 bytes more each way.
    put('proc/net/nf_conntrack', readFileSync(join(root, 'proc/net/nf_conntrack'), 'utf8').replace('bytes=1000', 'bytes=6000').replace('bytes=9000', 'bytes=14000'));
    clock.t += 5000;
    expect(live.onlineUsers().items[0]).toMatchObject({ up_rate: 1000, down_rate: 1000, up_bytes: 6060 });

    // A client that leaves the neighbour table is no longer online but still counts as seen today.
    put('proc/net/arp', readFileSync(join(root, 'proc/net/arp'), 'utf8').replace(/^192\.168\.11\.120.*\n/m, ''));
    clock.t += 5000;
    expect(live.onlineUsers().total).toBe(1);
    expect(live.dashboard().user).toMatchObject({ online: 1, total: 2 });
  });

  it('falls back to 0 connections of 1024 without connection tracking', () => {
    writeFixture();
    rmSync(join(root, 'proc/sys/net/netfilter'), { recursive: true });
    rmSync(join(root, 'proc/net/nf_conntrack'));
    const { live } = linuxAt();
    expect(live.dashboard().system).toMatchObject({ conn_count: 0, conn_max: 1024 });
    expect(live.onlineUsers().items.every((u) => u.conn_count === 0 && u.up_bytes === 0)).toBe(true);
  });

  it('derives a stable serial from machine-id without showing the id', () => {
    writeFixture();
    const a = linuxAt().live;
    const b = linuxAt().live;
    const registration = registrationSchema.parse(a.registration());
    expect(registration).toEqual({
      isRegister: false,
      locked: false,
      sn: b.registration().sn,
      mac: '52:54:00:aa:00:01',
      is_x86: ['x64', 'ia32'].includes(os.arch()),
    });
    expect(registration.sn).toMatch(/^PT[0-9A-F]{14}$/);
    expect(registration.sn.toLowerCase()).not.toContain(MACHINE_ID.slice(0, 14));

    put('etc/machine-id', `${MACHINE_ID.replace('4f', '50')}\n`);
    expect(linuxAt().live.registration().sn).not.toBe(registration.sn);
  });

  it('keeps a generated serial in the state folder when there is no machine-id', () => {
    writeFixture();
    const noEtc = join(root, 'no-etc');
    const first = linuxAt(T0, { etcRoot: noEtc }).live.registration().sn;
    expect(existsSync(join(stateDir, LINUX_IDENTITY_FILE))).toBe(true);
    expect(linuxAt(T0, { etcRoot: noEtc }).live.registration().sn).toBe(first);
  });

  it('describes the system from /proc/cpuinfo and /proc/meminfo', () => {
    writeFixture();
    const info = systemInfoSchema.parse(linuxAt().live.system());
    expect(info).toMatchObject({
      hostname: os.hostname(),
      kernel: os.release(),
      cpu_model: 'Test CPU @ 2.0GHz',
      cpu_cores: 2,
      memory_total: 2048000 * 1024,
      uptime: 12345,
      arch: os.machine(),
    });
  });

  it('samples a load history on its timer and keeps it across restarts', () => {
    writeFixture();
    // Started 100 ms into a sample period: the first reading is 4.95 s after the start, later ones 5 s apart.
    vi.useFakeTimers({ now: T0 + 100, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const options = {
      procRoot: join(root, 'proc'),
      sysRoot: join(root, 'sys'),
      etcRoot: join(root, 'etc'),
      stateDir,
      networkInterfaces: addresses,
    };
    const live = createLinuxLive(options);
    sources.push(live);
    expect(vi.getTimerCount()).toBe(1);
    let rx = 1_000_000;
    for (let i = 0; i < 12; i += 1) {
      // Each 5 s: 500 jiffies of which 125 busy (25 %), 50 kB in on the WAN (10 kB/s).
      rx += 50_000;
      put('proc/stat', `cpu  ${1000 + (i + 1) * 125} 0 500 ${8000 + (i + 1) * 375} 500 0 0 0 0 0\n`);
      put('proc/net/dev', netDev([rx, 200_000], [300_000, 900_000]));
      vi.advanceTimersByTime(5000);
    }
    const series = loadSeriesSchema.parse(live.loadSeries('5m'));
    expect(series.points).toHaveLength(12);
    expect(series.points[0]).toMatchObject({ t: T0 + 5000, cpu: 25, rx_rate: Math.round(50_000 / 4.95) });
    for (let i = 1; i < series.points.length; i += 1) expect(series.points[i]!.t - series.points[i - 1]!.t).toBe(5000);
    for (const point of series.points.slice(1)) {
      expect(point).toMatchObject({ cpu: 25, memory: 75, load1: 0.52, rx_rate: 10_000, tx_rate: 0, conn_count: 3 });
    }
    live.stop();
    expect(vi.getTimerCount()).toBe(0);
    expect(existsSync(join(stateDir, LINUX_HISTORY_FILE))).toBe(true);

    const again = createLinuxLive(options);
    sources.push(again);
    expect(again.loadSeries('5m').points).toEqual(series.points);
    expect(again.loadSeries('1h').points.length).toBeGreaterThan(0);
  });

  it('parses the odd corners of the kernel formats', () => {
    expect(routeHexToIpv4('0101A8C0')).toBe('192.168.1.1');
    expect(routeHexToIpv4('zz')).toBeNull();
    expect(
      parseDefaultRoutes('Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\nppp0\t00000000\t00000000\t0001\t0\t0\t5\t00000000\neth0\t00000000\t0101A8C0\t0003\t0\t0\t1\t00000000\n'),
    ).toEqual([
      { iface: 'eth0', gateway: '192.168.1.1', metric: 1 },
      { iface: 'ppp0', gateway: '', metric: 5 },
    ]);
    expect(parseMeminfo('MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 50 kB\nCached: 250 kB\n')).toEqual({
      totalBytes: 1000 * 1024,
      availableBytes: 400 * 1024,
    });
    expect(parseCpuinfo('Processor\t: ARMv7 Processor rev 5 (v7l)\nprocessor\t: 0\nprocessor\t: 1\nHardware\t: Generic DT based system\n')).toEqual({
      model: 'ARMv7 Processor rev 5 (v7l)',
      cores: 2,
    });
    expect(parseNetDev('Inter-|\n face |\n  eth0:123 1 0 0 0 0 0 0 456 1 0 0 0 0 0 0\n  bad: x\n').get('eth0')).toEqual({ rxBytes: 123, txBytes: 456 });
  });
});

describe.runIf(process.platform === 'linux' && existsSync('/proc/stat'))('Linux live status on this machine', () => {
  it('reads the real /proc and /sys in the shape of the schemas', () => {
    const live = createLinuxLive({ stateDir });
    sources.push(live);
    const dashboard = dashboardSchema.parse(live.dashboard());
    expect(dashboard.system.memory_total).toBeGreaterThan(0);
    expect(dashboard.system.uptime).toBeGreaterThan(0);
    for (const range of CHART_RANGE_KEYS) loadSeriesSchema.parse(live.loadSeries(range));
    const netifs = netifListSchema.parse(live.netif());
    expect(netifs.items.some((n) => n.ifname === 'lo')).toBe(false);
    onlineUserListSchema.parse(live.onlineUsers());
    registrationSchema.parse(live.registration());
    const info = systemInfoSchema.parse(live.system());
    expect(info.cpu_cores).toBeGreaterThan(0);
  });
});
