import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import WebSocket from 'ws';
import { apGroup, apMacFilter, rpcNotification, wirelessSsid } from '@portico/schema';
import { adminClient, CONDITION_WAIT, get, json, post, startDaemon, tempDir, writeConfirmed, type Client, type Harness } from './daemon-harness.js';
import { wirelessServiceOf } from '../src/domains/wireless/wireless-module.js';
import { deviceBase, type WirelessService } from '../src/domains/wireless/wireless-service.js';
import { WirelessDevicePki } from '../src/domains/wireless/controller/wireless-device-pki.js';
import { runCommand } from '../src/engine/command-runner.js';
// The AP agent with its real transport; its radios recorded instead of driven.
import { AgentSession } from '../../ap-agent/src/ap-agent-session.js';
import { FileConfigStore } from '../../ap-agent/src/ap-agent-config-store.js';
import { dialController } from '../../ap-agent/src/ap-agent-transport.js';
import type { ControllerTarget } from '../../ap-agent/src/ap-agent-main.js';
import { agentSettings } from '../../ap-agent/test/agent-fixtures.js';
import { FakeClock } from '../../ap-agent/test/fake-clock.js';
import { FakeRadioDriver } from '../../ap-agent/test/fake-radio-driver.js';
import { recordedSystem } from '../../ap-agent/test/session-harness.js';

/**
 * The controller's TLS WebSocket listener and the agent's transport together on loopback:
 * device certificates issued through the API, mutual TLS, the serial bound to the certificate,
 * and hostile connections refused.
 */

const SERIAL_A = '02aabb000001';
const SERIAL_B = '02aabb000002';
const SERIAL_C = '02aabb000003';

let h: Harness;
let admin: Client;
let service: WirelessService;
let port: number;
const agents: AgentSession[] = [];
const files = tempDir('wireless-transport-');

beforeAll(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
  service = wirelessServiceOf(h.app.appContext)!;
  port = await service.listenDevices({ port: 0, host: '127.0.0.1', names: ['127.0.0.1', 'localhost'] });
});
afterAll(async () => {
  for (const agent of agents) agent.stop();
  await h.close();
});

const api = async (path: string) => json(await get(h.app, admin, `/api/${path}`));

/** The certificate files of a device, as the administrator installs them on the AP. */
async function certificateFor(serial: string): Promise<ControllerTarget['tls']> {
  const answer = json(await post(h.app, admin, '/api/ac/devicecert', { serial }));
  expect(answer.success).toBe(true);
  expect(answer.data.certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
  const dir = join(files, serial);
  mkdirSync(dir, { recursive: true });
  const tls = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem'), ca: join(dir, 'ca.pem') };
  writeFileSync(tls.cert, answer.data.certificate);
  writeFileSync(tls.key, answer.data.key, { mode: 0o600 });
  writeFileSync(tls.ca, answer.data.ca);
  return tls;
}

function target(serial: string, tls: ControllerTarget['tls']): ControllerTarget {
  return { host: '127.0.0.1', port, serial, tls };
}

/** A raw device end (no agent): what a hostile or broken device sends. */
async function rawDevice(tls: ControllerTarget['tls']): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  const ws = new WebSocket(`wss://127.0.0.1:${port}/`, 'ucentral-broker', {
    cert: readFileSync(tls.cert),
    key: readFileSync(tls.key),
    ca: readFileSync(tls.ca),
    perMessageDeflate: false,
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, closed };
}

function startAgentFor(serial: string, tls: ControllerTarget['tls'], clock: FakeClock, driver: FakeRadioDriver): AgentSession {
  const settings = agentSettings({ serial, controller: { host: '127.0.0.1', port }, tls });
  const agent = new AgentSession({
    identity: { serial, firmware: 'Debian 12 portico-agent', model: 'portico-ap', platform: 'ap' },
    settings,
    driver,
    store: new FileConfigStore(settings.stateDir),
    system: recordedSystem(),
    firmwareKey: null,
    clock,
    random: () => 0.5,
    unit: () => ({ load: [0.1, 0.1, 0.1], uptime: 7200 }),
    connect: () => dialController(target(serial, tls)),
  });
  agents.push(agent);
  return agent;
}

describe('the device listener over TLS WebSockets', () => {
  test('an agent with its issued certificate is adopted, configured, reports its station; a black-listed MAC reaches it; revoked, it is cut off and refused', async () => {
    const group = await writeConfirmed(h, admin, apGroup, { action: 'add', name: 'Office', channel2g: 6, enabled5g: false, macFilter: 'blacklist', roaming: true });
    await writeConfirmed(h, admin, wirelessSsid, { action: 'add', group, ssid: 'Office', security: 'wpa2psk', key: 'office-passphrase', band: '2g' });
    const tls = await certificateFor(SERIAL_A);
    const clock = new FakeClock();
    const driver = new FakeRadioDriver(() => clock.now());
    const agent = startAgentFor(SERIAL_A, tls, clock, driver);
    await agent.start();

    await vi.waitFor(async () => expect((await api('ac/apbind')).data.items.map((r: { serial: string }) => r.serial)).toEqual([SERIAL_A]), CONDITION_WAIT);
    expect(driver.applied).toHaveLength(0);
    // The address the AP reached the controller on: where its firmware links point.
    expect(service.controller.live(SERIAL_A)?.gatewayAddress).toBe('127.0.0.1');
    expect(deviceBase('https://router.example:8443', service.controller.live(SERIAL_A)?.gatewayAddress)).toBe('https://127.0.0.1:8443');

    expect(json(await post(h.app, admin, '/api/ac/apcmd', { action: 'adopt', serials: [SERIAL_A], group })).data.done).toEqual([SERIAL_A]);
    await vi.waitFor(() => expect(driver.applied).toHaveLength(1), CONDITION_WAIT);
    expect(JSON.stringify(driver.applied[0])).toContain('office-passphrase');
    await vi.waitFor(async () => expect((await api('ac/aplist')).data.items[0]).toMatchObject({ serial: SERIAL_A, status: 'adopted', configOutcome: 'applied', online: true }), CONDITION_WAIT);

    driver.snapshotValue = {
      radios: [{ index: 0, band: '2G', channel: 6, width: 20, txPowerDbm: 20 }],
      bsses: [
        {
          radioIndex: 0,
          ifname: 'wlan0',
          interfaceName: 'lan',
          bssid: '02:aa:bb:cc:dd:00',
          ssid: 'Office',
          mode: 'ap',
          band: '2G',
          channel: 6,
          associations: [{ station: '02:11:22:33:44:01', rssi: -52, rx_bytes: 1200, tx_bytes: 3400, connected: 30, inactive: 0 }],
        },
      ],
    };
    await clock.advance(60_000);
    await vi.waitFor(async () => expect((await api('ac/stalist')).data.items).toMatchObject([{ mac: '02:11:22:33:44:01', rssi: -52, ssid: 'Office' }]), CONDITION_WAIT);

    await writeConfirmed(h, admin, apMacFilter, { action: 'add', list: 'blacklist', mac: '02:11:22:33:44:01', group });
    await vi.waitFor(() => expect(driver.applied).toHaveLength(2), CONDITION_WAIT);
    expect(JSON.stringify(driver.applied[1])).toContain('02:11:22:33:44:01');

    // Revoked: the live link is cut, and the certificate no longer opens one.
    expect(json(await post(h.app, admin, '/api/ac/apcmd', { action: 'revoke', serials: [SERIAL_A] })).data.done).toEqual([SERIAL_A]);
    await vi.waitFor(() => expect(service.controller.isOnline(SERIAL_A)).toBe(false), CONDITION_WAIT);
    await expect(dialController(target(SERIAL_A, tls))).rejects.toThrow(/403/);
    // Nor can a new certificate be issued for it until it is forgotten.
    expect(json(await post(h.app, admin, '/api/ac/devicecert', { serial: SERIAL_A })).success).toBe(false);
    agent.stop();
  });

  test('a device that makes its own key gets a certificate for its request, no key; bad requests are field errors', async () => {
    const SERIAL_D = '02aabb000004';
    const dir = join(files, 'csr');
    mkdirSync(dir, { recursive: true });
    const request = (name: string, subject: string, key: string[]) =>
      execFileSync('openssl', ['req', '-new', '-newkey', ...key, '-nodes', '-keyout', join(dir, `${name}.key`), '-subj', subject], { encoding: 'utf8' });
    const ec = ['ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
    const csr = request('d', `/CN=${SERIAL_D}`, ec);
    const answer = json(await post(h.app, admin, '/api/ac/devicecert', { serial: SERIAL_D, csr }));
    expect(answer.success, JSON.stringify(answer)).toBe(true);
    expect(answer.data.key).toBeUndefined();
    const tls = { cert: join(dir, 'd.pem'), key: join(dir, 'd.key'), ca: join(dir, 'ca.pem') };
    writeFileSync(tls.cert, answer.data.certificate);
    writeFileSync(tls.ca, answer.data.ca);
    // The certificate carries the request's key: the device connects with its own key.
    const device = await rawDevice(tls);
    device.ws.send(rpcNotification('connect', { serial: SERIAL_D, uuid: 0, firmware: 'x', capabilities: { platform: 'ap', model: 'PX-1' } }));
    await vi.waitFor(async () => expect((await api('ac/apbind')).data.items.map((r: { serial: string }) => r.serial)).toContain(SERIAL_D), CONDITION_WAIT);
    device.ws.close();

    const refused = async (serial: string, body: string) => json(await post(h.app, admin, '/api/ac/devicecert', { serial, csr: body })).errors?.csr;
    expect(await refused(SERIAL_D, request('other', `/CN=${SERIAL_C}`, ec))).toBe('validation.wireless.csr.subject');
    expect(await refused(SERIAL_D, request('extra', `/CN=${SERIAL_D}/O=Evil`, ec))).toBe('validation.wireless.csr.subject');
    expect(await refused(SERIAL_D, request('weak', `/CN=${SERIAL_D}`, ['rsa:1024']))).toBe('validation.wireless.csr.key');
    expect(await refused(SERIAL_D, 'not a request')).toBe('validation.wireless.csr.format');
    expect(await refused(SERIAL_D, `${csr}\n-----BEGIN CERTIFICATE REQUEST-----\n${csr}`)).toBe('validation.wireless.csr.format');
    // One character of the signed body changed: the self-signature no longer verifies.
    const lines = csr.trim().split('\n');
    const at = 2;
    const line = lines[at]!;
    lines[at] = line.slice(0, 10) + (line[10] === 'A' ? 'B' : 'A') + line.slice(11);
    expect(['validation.wireless.csr.signature', 'validation.wireless.csr.format']).toContain(await refused(SERIAL_D, `${lines.join('\n')}\n`));
  });

  test('a certificate for one serial cannot speak for another', async () => {
    const tls = await certificateFor(SERIAL_B);
    const device = await rawDevice(tls);
    device.ws.send(rpcNotification('connect', { serial: SERIAL_C, uuid: 0, firmware: 'x', capabilities: { platform: 'ap', model: 'PX-1' } }));
    expect(await device.closed).toBe(1008);
    const pending = (await api('ac/apbind')).data.items.map((r: { serial: string }) => r.serial);
    expect(pending).not.toContain(SERIAL_C);
    expect(pending).not.toContain(SERIAL_B);
    expect(service.log.some((e) => e.source === 'controller' && e.key === 'wireless.log.serialMismatch' && e.serial === SERIAL_B)).toBe(true);
  });

  test('malformed, binary and oversize frames close the link', async () => {
    const tls = await certificateFor(SERIAL_C);
    const notJson = await rawDevice(tls);
    notJson.ws.send('{"jsonrpc":"2.0","method":');
    expect(await notJson.closed).toBe(1002);

    const notRpc = await rawDevice(tls);
    notRpc.ws.send(JSON.stringify({ hello: 'world' }));
    expect(await notRpc.closed).toBe(1002);

    const binary = await rawDevice(tls);
    binary.ws.send(Buffer.from(rpcNotification('connect', { serial: SERIAL_C })));
    expect(await binary.closed).toBe(1002);

    const oversize = await rawDevice(tls);
    oversize.ws.send(rpcNotification('log', { serial: SERIAL_C, log: 'x'.repeat(300 * 1024), severity: 6 }));
    expect(await oversize.closed).toBe(1009);
  });

  test('devices without a certificate of the device CA never reach the controller', async () => {
    // A certificate from another CA, for a serial the controller would otherwise take as pending.
    const foreignDir = tempDir('wireless-foreign-ca-');
    const foreign = new WirelessDevicePki(join(foreignDir, 'pki'), runCommand);
    await foreign.ensureAuthority();
    const issued = await foreign.issueDevice('02aabb0000ff');
    const own = await certificateFor('02aabb0000fe');
    const tls = { cert: join(foreignDir, 'cert.pem'), key: join(foreignDir, 'key.pem'), ca: own.ca };
    writeFileSync(tls.cert, issued.certificate);
    writeFileSync(tls.key, issued.key);
    await expect(dialController(target('02aabb0000ff', tls))).rejects.toThrow();

    // No client certificate at all.
    const bare = new WebSocket(`wss://127.0.0.1:${port}/`, 'ucentral-broker', { ca: readFileSync(own.ca) });
    let opened = false;
    bare.on('open', () => (opened = true));
    await new Promise<void>((resolve) => {
      bare.on('error', () => resolve());
      bare.on('close', () => resolve());
    });
    expect(opened).toBe(false);
    // Neither got a session: the pending list holds only devices that proved their serial.
    const pending = (await api('ac/apbind')).data.items.map((r: { serial: string }) => r.serial);
    expect(pending).not.toContain('02aabb0000ff');
    expect(service.controller.isOnline('02aabb0000ff')).toBe(false);
  });
});
