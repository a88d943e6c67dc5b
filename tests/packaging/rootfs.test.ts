import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, copyFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from '../../apps/daemon/launch-flags.mjs';
import { readSettings } from '../../apps/daemon/src/settings.js';
import { IMAGE_LAYOUT, imagePackages } from '../../image/image-layout.mjs';
import { assignment, envFile, ethernetPorts } from '../../rootfs/usr/lib/portico/bin/portico-assign-ports.mjs';
import { blessRunningSlot, bootedCountedEntry, onTrial } from '../../rootfs/usr/lib/portico/bin/portico-boot-check.mjs';

/**
 * The image's own files (rootfs/), checked with the tools that read them on the device:
 * systemd's verifier and its security report on the units, the port assignment run for real on
 * a made-up sysfs, and the daemon's settings parser on the environment the unit gives it.
 */

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const rootfs = join(repo, 'rootfs');
const work = mkdtempSync(join(tmpdir(), 'portico-rootfs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const unitFile = (name: string) => join(rootfs, 'etc/systemd/system', name);

/** `Key=value` lines of a unit (or env file) section, in order, continuation-free. */
function entries(text: string): Array<[string, string]> {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith(';') && !line.startsWith('['))
    .map((line) => {
      const at = line.indexOf('=');
      return [line.slice(0, at), line.slice(at + 1)] as [string, string];
    });
}

/** The environment the daemon's unit gives it: Environment= words, then each EnvironmentFile. */
function unitEnvironment(portsEnv: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of entries(readFileSync(unitFile('portico.service'), 'utf8'))) {
    if (key === 'Environment') for (const word of value.split(/\s+/)) env[word.slice(0, word.indexOf('='))] = word.slice(word.indexOf('=') + 1);
  }
  for (const [key, value] of [...entries(portsEnv), ...entries(readFileSync(join(rootfs, 'etc/portico/portico.env'), 'utf8'))]) env[key] = value;
  return env;
}

describe('the daemon unit', () => {
  const unit = readFileSync(unitFile('portico.service'), 'utf8');
  const values = (key: string) => entries(unit).filter(([k]) => k === key).map(([, v]) => v);

  test('starts the bundle with the launch flags and malloc settings every launcher uses', () => {
    expect(values('ExecStart')).toEqual([`${IMAGE_LAYOUT.node} ${DAEMON_NODE_FLAGS.join(' ')} ${IMAGE_LAYOUT.appDir}/apps/daemon/dist/main.mjs`]);
    const env = unitEnvironment('');
    for (const [key, value] of Object.entries(DAEMON_ENV)) expect(env[key]).toBe(value);
    expect(values('Restart')).toEqual(['on-failure']);
    expect(values('StateDirectory')).toEqual([IMAGE_LAYOUT.stateDir.replace('/var/lib/', '')]);
  });

  test('gives the daemon settings it accepts: the linux driver, the assigned ports, its state folder', () => {
    const ports = envFile(assignment(['enp0s3', 'enp0s4', 'enp0s5']));
    const env = unitEnvironment(ports);
    // Only real settings: a misspelt name would be silently ignored by the daemon.
    const known = new Set(readFileSync(join(repo, 'apps/daemon/src/settings.ts'), 'utf8').match(/PORTICO_[A-Z_]+/g));
    for (const key of Object.keys(env).filter((k) => k.startsWith('PORTICO_'))) expect(known, key).toContain(key);
    const settings = readSettings(env);
    expect(settings.driver).toBe('linux');
    expect(settings.stateDir).toBe(IMAGE_LAYOUT.stateDir);
    expect(settings.port).toBe(IMAGE_LAYOUT.consolePort);
    expect(settings.factoryWanPorts).toEqual(['enp0s3']);
    expect(settings.factoryLanPorts).toEqual(['enp0s4', 'enp0s5']);
  });

  const systemdUnits = ['/usr/lib/systemd/system', '/lib/systemd/system'].find((dir) => existsSync(join(dir, 'sysinit.target')));
  const analyze = existsSync('/usr/bin/systemd-analyze') && systemdUnits ? null : 'systemd-analyze or systemd unit files missing on this machine';

  /** A root holding systemd's own units, the image's, and the binaries they name. */
  function unitRoot(): string {
    const root = join(work, 'unit-root');
    rmSync(root, { recursive: true, force: true });
    mkdirSync(join(root, 'usr/lib/systemd'), { recursive: true });
    cpSync(systemdUnits!, join(root, 'usr/lib/systemd/system'), { recursive: true, verbatimSymlinks: true });
    cpSync(join(rootfs, 'etc'), join(root, 'etc'), { recursive: true });
    mkdirSync(join(root, dirname(IMAGE_LAYOUT.node).slice(1)), { recursive: true });
    copyFileSync(process.execPath, join(root, IMAGE_LAYOUT.node.slice(1)));
    chmodSync(join(root, IMAGE_LAYOUT.node.slice(1)), 0o755);
    return root;
  }

  test.skipIf(analyze !== null)(`passes systemd's verifier${analyze ? ` (skipped: ${analyze})` : ''}`, () => {
    const root = unitRoot();
    const verify = spawnSync('systemd-analyze', ['verify', `--root=${root}`, 'portico.service', 'portico-ports.service', 'portico-boot-ok.service'], { encoding: 'utf8' });
    expect(verify.stderr).toBe('');
    expect(verify.status).toBe(0);
  });

  test.skipIf(analyze !== null)(`is hardened: systemd rates its exposure below 5 of 10${analyze ? ` (skipped: ${analyze})` : ''}`, () => {
    const root = unitRoot();
    const report = spawnSync('systemd-analyze', ['security', '--offline=yes', `--root=${root}`, 'portico.service'], { encoding: 'utf8' });
    const level = Number(/Overall exposure level for portico\.service: ([\d.]+)/.exec(report.stdout)?.[1]);
    expect(level).toBeGreaterThan(0);
    expect(level).toBeLessThan(5);
  });
});

describe('the first boot port assignment', () => {
  /** A sysfs net folder: `ports` are [name, bus path or null for virtual, extra files]. */
  function sysfs(ports: Array<[string, string | null, Record<string, string>?]>): string {
    const dir = mkdtempSync(join(work, 'sys-'));
    for (const [name, bus, extra] of ports) {
      const port = join(dir, 'class/net', name);
      mkdirSync(port, { recursive: true });
      writeFileSync(join(port, 'type'), `${extra?.type ?? '1'}\n`);
      if (bus) {
        mkdirSync(join(dir, 'devices', bus), { recursive: true });
        symlinkSync(join(dir, 'devices', bus), join(port, 'device'));
      }
      for (const sub of Object.keys(extra ?? {}).filter((key) => key !== 'type')) mkdirSync(join(port, sub));
    }
    return join(dir, 'class/net');
  }

  test('orders Ethernet ports by bus, leaving out virtual links, radios and non-Ethernet devices', () => {
    const net = sysfs([
      ['enp0s10', 'pci0000:00/0000:00:0a.0', {}],
      ['enp0s4', 'pci0000:00/0000:00:04.0', {}],
      ['enp0s3', 'pci0000:00/0000:00:03.0', {}],
      ['br-lan', null],
      ['veth0', null],
      ['wlan0', 'pci0000:00/0000:00:05.0', { phy80211: '' }],
      ['ib0', 'pci0000:00/0000:00:06.0', { type: '32' }],
    ]);
    expect(ethernetPorts(net)).toEqual(['enp0s3', 'enp0s4', 'enp0s10']);
  });

  test('writes the env file the unit reads: first port WAN, the rest LAN; a single port is the LAN', () => {
    const net = sysfs([
      ['eth1', 'pci0000:00/0000:00:04.0', {}],
      ['eth0', 'pci0000:00/0000:00:03.0', {}],
    ]);
    const target = join(work, 'etc-portico', 'ports.env');
    const ran = spawnSync(process.execPath, [join(rootfs, 'usr/lib/portico/bin/portico-assign-ports.mjs'), target, net], { encoding: 'utf8' });
    expect(ran.status).toBe(0);
    const written = readFileSync(target, 'utf8');
    expect(entries(written)).toEqual([
      ['PORTICO_WAN_PORTS', 'eth0'],
      ['PORTICO_LAN_PORTS', 'eth1'],
    ]);
    expect(assignment(['eth0'])).toEqual({ wan: [], lan: ['eth0'] });
    expect(readSettings(unitEnvironment(envFile(assignment(['eth0'])))).factoryWanPorts).toEqual([]);
  });

  test('runs once: the unit is skipped when the file exists, so an edited assignment stays', () => {
    const unit = entries(readFileSync(unitFile('portico-ports.service'), 'utf8'));
    expect(unit).toContainEqual(['ConditionPathExists', `!${IMAGE_LAYOUT.portsEnv}`]);
    expect(unit.find(([key]) => key === 'ExecStart')?.[1]).toBe(`${IMAGE_LAYOUT.node} ${IMAGE_LAYOUT.appDir}/bin/portico-assign-ports.mjs ${IMAGE_LAYOUT.portsEnv}`);
  });
});

describe('the image package list', () => {
  test('names each package once, and the tools every driver command needs', () => {
    const spec = JSON.parse(readFileSync(join(repo, 'image/image-packages.json'), 'utf8')) as { groups: Record<string, { packages: string[] }> };
    const all = Object.values(spec.groups).flatMap((group) => group.packages);
    expect(new Set(all).size).toBe(all.length);
    const { packages } = imagePackages();
    for (const needed of ['linux-image-amd64', 'systemd-boot-efi', 'qemu-guest-agent', 'nftables', 'iproute2', 'dnsmasq-base', 'ppp', 'pppoe', 'xl2tpd', 'strongswan-swanctl', 'openvpn', 'hostapd', 'wpasupplicant', 'iw']) {
      expect(packages).toContain(needed);
    }
  });
});

describe('the boot check', () => {
  test("marks the running slot's counted entry good, and nothing else", () => {
    const entries = join(work, 'entries');
    mkdirSync(entries, { recursive: true });
    writeFileSync(join(entries, 'portico-a.conf'), 'version 1.0.0\n');
    writeFileSync(join(entries, 'portico-b+2-1.conf'), 'version 1.1.0\n');
    // Booted from slot a: slot b's trial is not this boot's to confirm.
    expect(blessRunningSlot('root=PARTLABEL=portico-root-a rw quiet', entries)).toBeNull();
    expect(blessRunningSlot('root=/dev/sda2 rw', entries)).toBeNull();
    expect(blessRunningSlot('BOOT_IMAGE=/x root=PARTLABEL=portico-root-b rw quiet', entries)).toBe('portico-b.conf');
    expect(readdirSync(entries).sort()).toEqual(['portico-a.conf', 'portico-b.conf']);
    expect(readFileSync(join(entries, 'portico-b.conf'), 'utf8')).toBe('version 1.1.0\n');
    // Already good: nothing to do.
    expect(blessRunningSlot('root=PARTLABEL=portico-root-b rw', entries)).toBeNull();
  });

  test('an unconfirmed boot reboots only while it is a try of a counted entry', () => {
    const entries = join(work, 'trial-entries');
    const efivars = join(work, 'efivars');
    mkdirSync(entries, { recursive: true });
    mkdirSync(efivars, { recursive: true });
    writeFileSync(join(entries, 'portico-a.conf'), 'version 1.0.0\n');
    writeFileSync(join(entries, 'portico-b+0-3.conf'), 'version 1.1.0\n');
    // The boot loader's record of a counted entry it booted: attributes, then the UTF-16LE path.
    const variable = join(efivars, 'LoaderBootCountPath-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f');
    writeFileSync(variable, Buffer.concat([Buffer.from([7, 0, 0, 0]), Buffer.from('\\loader\\entries\\portico-b+0-3.conf\0', 'utf16le')]));
    expect(bootedCountedEntry(efivars)).toBe('portico-b+0-3.conf');
    // Its last try (+0) still reboots: the next boot is the old slot's.
    expect(onTrial('root=PARTLABEL=portico-root-b rw', entries, efivars)).toBe(true);
    rmSync(variable);
    expect(bootedCountedEntry(efivars)).toBeNull();
    // Without the record: the running slot's entry still counting tries is the trial.
    expect(onTrial('root=PARTLABEL=portico-root-b rw', entries, efivars)).toBe(true);
    // Fallen back to slot a, whose entry is good: a slow daemon never reboots a good slot.
    expect(onTrial('root=PARTLABEL=portico-root-a rw', entries, efivars)).toBe(false);
    expect(onTrial('root=/dev/sda2 rw', entries, efivars)).toBe(false);
    writeFileSync(variable, Buffer.concat([Buffer.from([7, 0, 0, 0]), Buffer.from('\\EFI\\Linux\\other+1.efi\0', 'utf16le')]));
    expect(bootedCountedEntry(efivars)).toBeNull();
  });
});
