import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { inNs, run } from './lab-topology.js';
import { labPrerequisites, WIRELESS_LAB_PACKAGES } from './lab-packages.js';
import { migrateModule, openDatabase, type Db } from '../../apps/daemon/src/plugins/db-open.js';
import { WIRELESS_DEVICE_MIGRATIONS, WirelessDeviceStore } from '../../apps/daemon/src/domains/wireless/controller/wireless-device-store.js';
import { WirelessController } from '../../apps/daemon/src/domains/wireless/controller/wireless-controller.js';
import type { WirelessConfigBody } from '../../apps/daemon/src/domains/wireless/controller/wireless-controller-config.js';
import { WirelessDevicePki } from '../../apps/daemon/src/domains/wireless/controller/wireless-device-pki.js';
import { startDeviceListener, type DeviceListener } from '../../apps/daemon/src/domains/wireless/wireless-device-listener.js';
import { runCommand } from '../../apps/daemon/src/engine/command-runner.js';
import { startAgent, type RunningAgent } from '../../apps/ap-agent/src/ap-agent-main.js';
import { execaRunner, type CommandRunner } from '../../apps/ap-agent/src/ap-agent-command.js';
import { dialController } from '../../apps/ap-agent/src/ap-agent-transport.js';

/**
 * The AP agent driving a real hostapd, on the host without radios: hostapd's wired driver on one
 * end of a veth in an "AP" namespace, as an 802.1X authenticator whose RADIUS server is a second
 * hostapd (its integrated EAP server, EAP-MD5), and `wpa_supplicant -D wired` on the other end in
 * a "station" namespace. The agent speaks to the controller over the TLS WebSocket transport on
 * loopback, with a certificate from the device CA; every hostapd and hostapd_cli command the
 * agent runs goes through `ip netns exec` into the AP namespace. The station list the controller
 * shows and the black-list's effect come from what hostapd itself reports.
 */
const blocker = labPrerequisites(WIRELESS_LAB_PACKAGES);
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const SERIAL = '02ab00c0ffee';
const PORT_IF = 'eth1';
const STATION_IF = 'eth0';
const RADIUS_SECRET = 'lab-radius-secret';
/** The shortest statistics interval the configuration schema allows (seconds). */
const REPORT_S = 10;

const prefix = `pt${randomBytes(2).toString('hex')}`;
const apNs = `${prefix}-ap1`;
const staNs = `${prefix}-sta1`;
const dir = mkdtempSync(join(tmpdir(), 'portico-wired-hostapd-'));
const pids = { radius: join(dir, 'radius.pid'), station: join(dir, 'station.pid') };

let db: Db;
let controller: WirelessController;
let listener: DeviceListener;
let agent: RunningAgent | undefined;
let stationMac = '';
let config: WirelessConfigBody;

function groupConfig(deny: string[]): WirelessConfigBody {
  return {
    radios: [{ band: '2G', country: 'CN', channel: 6 }],
    interfaces: [
      {
        name: 'lan',
        role: 'upstream',
        ssids: [
          {
            name: 'Office',
            'wifi-bands': ['2G'],
            encryption: { proto: 'wpa2' },
            radius: { authentication: { host: '127.0.0.1', port: 1812, secret: RADIUS_SECRET } },
            'access-control-list': { mode: 'deny', 'mac-address': deny },
          },
        ],
      },
    ],
    metrics: { statistics: { interval: REPORT_S } },
  };
}

const hostapdCli = (...args: string[]) => inNs(apNs, ['hostapd_cli', '-p', join(dir, 'hostapd'), '-i', PORT_IF, ...args], { allowFail: true }).stdout ?? '';

/** The station's entry in hostapd's own table: its flags and 802.1X session, or null. */
function hostapdStation(mac: string): { authorized: boolean; session: string } | null {
  const text = hostapdCli('all_sta');
  const blocks = text.split(/\n(?=[0-9a-f]{2}(?::[0-9a-f]{2}){5}\n)/);
  const block = blocks.find((b) => b.trimStart().startsWith(mac));
  if (!block) return null;
  return { authorized: /flags=.*\[AUTHORIZED\]/.test(block), session: /dot1xAuthSessionId=(\S+)/.exec(block)?.[1] ?? '' };
}

function killPidFile(file: string): void {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (Number.isSafeInteger(pid) && pid > 1) process.kill(pid, 'SIGTERM');
  } catch {
    // Not started or already gone.
  }
}

beforeAll(async () => {
  // Two namespaces and the veth between them: the AP's wired port and the station's NIC.
  run(['ip', 'netns', 'add', apNs]);
  run(['ip', 'netns', 'add', staNs]);
  inNs(apNs, ['ip', 'link', 'add', PORT_IF, 'type', 'veth', 'peer', 'name', STATION_IF, 'netns', staNs]);
  for (const [ns, ifname] of [[apNs, PORT_IF], [apNs, 'lo'], [staNs, STATION_IF], [staNs, 'lo']] as const) inNs(ns, ['ip', 'link', 'set', ifname, 'up']);
  stationMac = JSON.parse(inNs(staNs, ['ip', '-j', 'link', 'show', STATION_IF]).stdout)[0].address;

  // The RADIUS server the port authenticates against: hostapd's integrated EAP server.
  writeFileSync(join(dir, 'radius-clients'), `127.0.0.1/32 ${RADIUS_SECRET}\n`);
  writeFileSync(join(dir, 'eap-users'), '"alice" MD5 "correct horse"\n');
  writeFileSync(
    join(dir, 'radius.conf'),
    ['driver=none', `radius_server_clients=${join(dir, 'radius-clients')}`, 'radius_server_auth_port=1812', 'eap_server=1', `eap_user_file=${join(dir, 'eap-users')}`, ''].join('\n'),
  );
  inNs(apNs, ['hostapd', '-B', '-P', pids.radius, join(dir, 'radius.conf')]);

  // The controller, its device CA, and the device listener on loopback.
  db = openDatabase(join(dir, 'portico.db'));
  migrateModule(db, 'wireless', WIRELESS_DEVICE_MIGRATIONS);
  const store = new WirelessDeviceStore(db);
  config = groupConfig([]);
  controller = new WirelessController({ store, now: Date.now, configFor: (serial) => (store.get(serial)?.groupId ? config : null) });
  const pki = new WirelessDevicePki(join(dir, 'pki'), runCommand);
  const authority = await pki.ensureAuthority();
  const server = await pki.issueServer(['127.0.0.1']);
  const device = await pki.issueDevice(SERIAL);
  listener = await startDeviceListener({
    port: 0,
    host: '127.0.0.1',
    key: readFileSync(server.keyFile),
    cert: readFileSync(server.certFile),
    ca: authority.toString(),
    isRevoked: (serial) => store.get(serial)?.status === 'revoked',
    onLink: (link) => controller.attach(link),
  });

  // The agent as installed on the AP: its settings file and certificate files.
  const etc = join(dir, 'agent');
  mkdirSync(etc, { recursive: true });
  writeFileSync(join(etc, 'cert.pem'), device.certificate);
  writeFileSync(join(etc, 'key.pem'), device.key, { mode: 0o600 });
  writeFileSync(join(etc, 'ca.pem'), authority.toString());
  writeFileSync(
    join(etc, 'agent.json'),
    JSON.stringify({
      controller: { host: '127.0.0.1', port: listener.port },
      serial: SERIAL,
      tls: { cert: join(etc, 'cert.pem'), key: join(etc, 'key.pem'), ca: join(etc, 'ca.pem') },
      radios: [{ phy: 'phy0', interface: PORT_IF, driver: 'wired' }],
      firmware: { version: 'lab 1.0' },
      stateDir: join(dir, 'agent-state'),
      runDir: join(dir, 'agent-run'),
      hostapdControlDir: join(dir, 'hostapd'),
      supplicantControlDir: join(dir, 'wpa_supplicant'),
      reconnect: { minMs: 200, maxMs: 2000 },
    }),
  );
  // hostapd and hostapd_cli run in the AP's namespace; the agent itself talks to the controller on loopback.
  const inApNs: CommandRunner = (argv, options) => execaRunner(['ip', 'netns', 'exec', apNs, ...argv], options);
  agent = await startAgent(dialController, { settingsPath: join(etc, 'agent.json'), run: inApNs });
}, 120_000);

afterAll(async () => {
  agent?.stop();
  controller?.stop();
  await listener?.close();
  killPidFile(pids.station);
  killPidFile(join(dir, 'agent-run', 'pid', `hostapd-${PORT_IF}.pid`));
  killPidFile(pids.radius);
  db?.close();
  for (const ns of [apNs, staNs]) run(['ip', 'netns', 'del', ns], { allowFail: true });
  rmSync(dir, { recursive: true, force: true });
});

describe('the agent on hostapd’s wired driver, with a wpa_supplicant station', () => {
  test('adopted over TLS, it runs hostapd; the 802.1X station shows in the controller’s list; black-listed, it is deauthenticated and kept off', async () => {
    await expect.poll(() => controller.live(SERIAL)?.online ?? false, { timeout: 30_000 }).toBe(true);
    controller.adopt(SERIAL, 'lab');
    await expect.poll(() => controller.live(SERIAL)?.uuid ?? 0, { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(() => /state=ENABLED/.test(hostapdCli('status')), { timeout: 30_000 }).toBe(true);

    // The station authenticates with 802.1X (EAP-MD5) through the port's hostapd and its RADIUS server.
    writeFileSync(
      join(dir, 'station.conf'),
      [`ctrl_interface=${join(dir, 'wpa_supplicant')}`, 'ap_scan=0', 'network={', '\tkey_mgmt=IEEE8021X', '\teap=MD5', '\tidentity="alice"', '\tpassword="correct horse"', '\teapol_flags=0', '}', ''].join('\n'),
    );
    inNs(staNs, ['wpa_supplicant', '-B', '-P', pids.station, '-D', 'wired', '-i', STATION_IF, '-c', join(dir, 'station.conf')]);
    await expect.poll(() => hostapdStation(stationMac)?.authorized ?? false, { timeout: 30_000 }).toBe(true);

    // Reported by the agent from hostapd's all_sta, held by the controller.
    await expect.poll(() => controller.stationsOf(SERIAL).map((s) => s.mac), { timeout: 3 * REPORT_S * 1000 }).toEqual([stationMac]);
    expect(controller.stationsOf(SERIAL)[0]).toMatchObject({ ssid: 'Office', rssi: null });

    // Black-listed: the agent edits hostapd's running list and deauthenticates the station.
    config = groupConfig([stationMac]);
    await controller.pushConfig([SERIAL]);
    await expect.poll(() => hostapdCli('deny_acl', 'SHOW'), { timeout: 30_000 }).toContain(stationMac);
    await expect.poll(() => hostapdStation(stationMac)?.authorized ?? false, { timeout: 30_000 }).toBe(false);
    await expect.poll(() => controller.stationsOf(SERIAL).map((s) => s.mac), { timeout: 3 * REPORT_S * 1000 }).toEqual([]);

    // hostapd's wired driver lets a station that authenticates again back in whatever its
    // lists say; the agent sends it away at its next report round. hostapd's own events say so.
    // stdbuf: hostapd_cli writes its events line by line only to a terminal, not to a pipe.
    const monitor = spawn('ip', ['netns', 'exec', apNs, 'stdbuf', '-oL', 'hostapd_cli', '-p', join(dir, 'hostapd'), '-i', PORT_IF], { stdio: ['pipe', 'pipe', 'ignore'] });
    let events = '';
    monitor.stdout.on('data', (chunk: Buffer) => (events += chunk.toString('utf8')));
    try {
      await expect.poll(() => events, { timeout: 30_000 }).toContain('Interactive mode');
      inNs(staNs, ['wpa_cli', '-p', join(dir, 'wpa_supplicant'), '-i', STATION_IF, 'reauthenticate']);
      await expect.poll(() => events, { timeout: 30_000 }).toContain(`AP-STA-CONNECTED ${stationMac}`);
      await expect.poll(() => events.slice(events.indexOf(`AP-STA-CONNECTED ${stationMac}`)), { timeout: 3 * REPORT_S * 1000 }).toContain(`AP-STA-DISCONNECTED ${stationMac}`);
    } finally {
      monitor.stdin.end('quit\n');
      monitor.kill();
    }
    expect(hostapdStation(stationMac)?.authorized ?? false).toBe(false);
    expect(controller.stationsOf(SERIAL).map((s) => s.mac)).toEqual([]);
  });
});
