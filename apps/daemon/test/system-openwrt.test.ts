import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { systemHost, systemTime, writeSchema, type AnyEntity } from '@portico/schema';
import { createOpenwrtApplier } from '../src/config/apply-openwrt.js';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { systemRegistry } from '../src/domain-list.js';
import { OPENWRT_SYSTEM_FILE, posixTimezone, ZoneError } from '../src/domains/system-time/system-time-openwrt.js';
import { checkUci } from '../src/engine/uci-check.js';
import { parseUci } from '../src/engine/uci-format.js';
import { HOSTILE_STRINGS } from '@portico/schema/testing';
import { OPENWRT_NETWORK_FILES } from '../src/domains/network/network-openwrt.js';
import { firewallSnapshot } from './firewall-fixture.js';

function single(entity: AnyEntity, input: Record<string, unknown>) {
  const parsed = writeSchema(entity, 'update').safeParse(input);
  if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues));
  return [{ id: '', data: parsed.data as Record<string, unknown> }];
}

const time = (input: Record<string, unknown>) => single(systemTime as unknown as AnyEntity, input);
const host = (hostname: string) => single(systemHost as unknown as AnyEntity, { hostname });

const registry = systemRegistry({ driver: 'openwrt' });

function systemFile(snapshot: ConfigSnapshot): string | undefined {
  return registry
    .renderEach(['system-time'], snapshot)
    .flatMap((entry) => entry.outputs ?? [])
    .flatMap((output) => output.files)
    .find((file) => file.target === OPENWRT_SYSTEM_FILE)?.content;
}

describe('/etc/config/system on the openwrt driver', () => {
  test('the zone (name and POSIX TZ string from the tz database), the NTP client and LAN server, the host name', () => {
    const content = systemFile({
      systemTime: time({ timezone: 'Europe/Berlin', ntp_client: true, ntp_servers: ['ntp1.example.net', '192.0.2.123'], ntp_server: true }),
      systemHost: host('gw-hq'),
    });
    expect(content).toBe(
      [
        'config system',
        "\toption hostname 'gw-hq'",
        "\toption zonename 'Europe/Berlin'",
        "\toption timezone 'CET-1CEST,M3.5.0,M10.5.0/3'",
        "\toption ttylogin '0'",
        "\toption log_size '64'",
        "\toption urandom_seed '0'",
        '',
        "config timeserver 'ntp'",
        "\toption enabled '1'",
        "\toption enable_server '1'",
        "\tlist server 'ntp1.example.net'",
        "\tlist server '192.0.2.123'",
        '',
      ].join('\n'),
    );
    expect(checkUci(content!)).toBeNull();
  });

  test('the NTP client off leaves no server list; a host name alone writes the time at its declared defaults', () => {
    const off = systemFile({ systemTime: time({ timezone: 'Asia/Kolkata', ntp_client: false, ntp_servers: [], ntp_server: false }) })!;
    expect(off).toContain("\toption timezone 'IST-5:30'\n");
    expect(off).toContain("config timeserver 'ntp'\n\toption enabled '0'\n\toption enable_server '0'\n");
    expect(off).not.toContain('list server');
    expect(off).not.toContain('hostname');
    const named = systemFile({ systemHost: host('edge') })!;
    expect(named).toContain("\toption hostname 'edge'\n\toption zonename 'Asia/Shanghai'\n\toption timezone 'CST-8'\n");
    expect(named).toContain("\tlist server '0.pool.ntp.org'\n\tlist server '1.pool.ntp.org'\n");
    expect(checkUci(off)).toBeNull();
    expect(checkUci(named)).toBeNull();
  });

  test("the board's own sections and options (LEDs, compat_version) are kept; the zone, NTP and host name are the settings'", () => {
    const root = mkdtempSync(join(tmpdir(), 'portico-uci-system-'));
    try {
      mkdirSync(join(root, 'etc/config'), { recursive: true });
      writeFileSync(
        join(root, OPENWRT_SYSTEM_FILE),
        [
          'config system',
          "\toption hostname 'OpenWrt'",
          "\toption timezone 'UTC'",
          "\toption log_size '128'",
          "\toption compat_version '1.1'",
          '',
          "config timeserver 'ntp'",
          "\tlist server 'old.example.org'",
          '',
          "config led 'led_wan'",
          "\toption name 'WAN'",
          "\toption sysfs 'green:wan'",
          "\toption trigger 'netdev'",
          '',
        ].join('\n'),
      );
      const board = systemRegistry({ driver: 'openwrt', systemRoot: root });
      const content = board
        .renderEach(['system-time'], { systemTime: time({ timezone: 'Asia/Shanghai', ntp_client: true, ntp_servers: ['ntp.example.net'], ntp_server: false }), systemHost: host('gw-hq') })
        .flatMap((entry) => entry.outputs ?? [])
        .flatMap((output) => output.files)
        .find((file) => file.target === OPENWRT_SYSTEM_FILE)?.content;
      const sections = parseUci(content!);
      expect(sections[0]).toEqual({ type: 'system', options: { hostname: 'gw-hq', log_size: '128', compat_version: '1.1', zonename: 'Asia/Shanghai', timezone: 'CST-8', ttylogin: '0', urandom_seed: '0' } });
      expect(sections[1]).toEqual({ type: 'timeserver', name: 'ntp', options: { enabled: '1', enable_server: '0', server: ['ntp.example.net'] } });
      expect(sections[2]).toEqual({ type: 'led', name: 'led_wan', options: { name: 'WAN', sysfs: 'green:wan', trigger: 'netdev' } });
      expect(sections).toHaveLength(3);
      expect(checkUci(content!)).toBeNull();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('nothing saved: the device keeps its own file', () => {
    expect(systemFile({})).toBeUndefined();
  });

  test('the POSIX string is the TZif footer; a zone the database lacks or a file without one is refused', () => {
    expect(posixTimezone('Asia/Shanghai')).toBe('CST-8');
    expect(posixTimezone('America/Sao_Paulo')).toBe('<-03>3');
    expect(() => posixTimezone('Mars/Olympus')).toThrow(ZoneError);
    const dir = mkdtempSync(join(tmpdir(), 'portico-zoneinfo-'));
    try {
      writeFileSync(join(dir, 'Old'), Buffer.concat([Buffer.from('TZif\0'), Buffer.alloc(40)]));
      writeFileSync(join(dir, 'Bad'), Buffer.concat([Buffer.from('TZif2'), Buffer.alloc(40), Buffer.from("\nCST-8'\n")]));
      expect(() => posixTimezone('Old', dir)).toThrow(/no POSIX TZ footer/);
      expect(() => posixTimezone('Bad', dir)).toThrow(/not a POSIX TZ string/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('hostile values', () => {
  test('are refused by the write schema, and a stored row that skipped it never adds a line or a section', () => {
    for (const value of HOSTILE_STRINGS) {
      const rows: ConfigSnapshot[] = [
        { systemHost: [{ id: '', data: { hostname: value } }] },
        { systemTime: [{ id: '', data: { timezone: value } }] },
        { systemTime: [{ id: '', data: { ntp_client: true, ntp_servers: [value] } }] },
      ];
      for (const snapshot of rows) {
        let content: string | undefined;
        try {
          content = systemFile(snapshot);
        } catch {
          continue;
        }
        const sections = parseUci(content!);
        expect(sections.map((section) => section.type)).toEqual(['system', 'timeserver']);
        expect(content!.split('\n').filter((line) => line.startsWith('config '))).toHaveLength(2);
      }
      expect(writeSchema(systemHost as unknown as AnyEntity, 'update').safeParse({ hostname: value }).success, value).toBe(/^[A-Za-z0-9-]+$/.test(value) && value.length <= 63 && !value.startsWith('-') && !value.endsWith('-'));
    }
  });
});

describe('applying /etc/config/system', () => {
  let root: string;
  let commands: string[][];
  const run: CommandRunner = async (argv) => {
    commands.push([...argv]);
    return { exitCode: 0, stdout: '', stderr: '' };
  };
  const savedTz = process.env.TZ;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'portico-openwrt-system-'));
    commands = [];
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  test('installs the package and reloads system, then sysntpd, once each; an unchanged file reloads nothing', async () => {
    const applier = createOpenwrtApplier({ root, run, domains: systemRegistry({ driver: 'openwrt' }) });
    const snapshot: ConfigSnapshot = { systemTime: time({ timezone: 'Europe/Berlin', ntp_servers: ['pool.ntp.org'] }), systemHost: host('gw') };
    await applier.apply(['system-time'], snapshot);
    expect(readFileSync(join(root, 'etc/config/system'), 'utf8')).toContain("option hostname 'gw'");
    expect(commands).toEqual([
      ['/etc/init.d/system', 'reload'],
      ['/etc/init.d/sysntpd', 'reload'],
    ]);
    expect(process.env.TZ).toBe('Europe/Berlin');
    commands = [];
    await applier.apply(['system-time'], snapshot);
    expect(commands).toEqual([]);
    await applier.apply(['system-time'], { ...snapshot, systemHost: host('gw2') });
    expect(commands).toEqual([
      ['/etc/init.d/system', 'reload'],
      ['/etc/init.d/sysntpd', 'reload'],
    ]);
  });

  test('a failing reload fails the apply and names the service', async () => {
    const applier = createOpenwrtApplier({
      root,
      run: async (argv) => ({ exitCode: argv[0] === '/etc/init.d/sysntpd' ? 1 : 0, stdout: '', stderr: 'ntpd: bad address' }),
      domains: systemRegistry({ driver: 'openwrt' }),
    });
    await expect(applier.apply(['system-time'], { systemTime: time({}) })).rejects.toThrow(/sysntpd reload failed: ntpd: bad address/);
  });

  test('a file that no longer parses as UCI never replaces the old one', async () => {
    mkdirSync(join(root, 'etc/config'), { recursive: true });
    writeFileSync(join(root, 'etc/config/system'), "config system\n\toption hostname 'old'\n");
    const applier = createOpenwrtApplier({ root, run, domains: systemRegistry({ driver: 'openwrt' }) });
    // A host name row that bypassed the write path: the render refuses it before any file changes.
    await expect(applier.apply(['system-time'], { systemHost: [{ id: '', data: { hostname: "x'\nconfig evil" } }] })).rejects.toThrow();
    expect(readFileSync(join(root, 'etc/config/system'), 'utf8')).toBe("config system\n\toption hostname 'old'\n");
    expect(commands).toEqual([]);
  });
});

describe('the LAN NTP server announced on OpenWrt', () => {
  /** Each LAN `dhcp` section's `dhcp_option` values in the rendered /etc/config/dhcp. */
  function lanDhcpOptions(ntpServer: boolean): string[][] {
    const snapshot = firewallSnapshot({ systemTime: { timezone: 'Asia/Shanghai', ntp_client: true, ntp_servers: ['0.pool.ntp.org'], ntp_server: ntpServer } });
    const dhcp = registry
      .renderEach(['network'], snapshot)
      .flatMap((entry) => entry.outputs ?? [])
      .flatMap((output) => output.files)
      .find((file) => file.target === OPENWRT_NETWORK_FILES.dhcp)!.content;
    expect(checkUci(dhcp)).toBeNull();
    return parseUci(dhcp)
      .filter((section) => section.type === 'dhcp' && section.options.ignore !== '1')
      .map((section) => [section.options.dhcp_option ?? []].flat());
  }

  test('as DHCP option 42 (dnsmasq puts its own address for 0.0.0.0) on every LAN, only while the server is on', () => {
    const on = lanDhcpOptions(true);
    expect(on.length).toBeGreaterThan(0);
    for (const options of on) expect(options).toContain('42,0.0.0.0');
    for (const options of lanDhcpOptions(false)) expect(options).not.toContain('42,0.0.0.0');
  });
});
