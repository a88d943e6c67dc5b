import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { firewallAcl, firewallConnLimit, firewallDmz, firewallHostMapping, firewallPortMapping } from '@portico/schema';
import { inNs, type Lab, setClientAddress } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { createLabGateway, row, type LabGateway, oneWanOneLan } from './lab-gateway.js';
import { udpCounter, udpStream, type NsProcess } from './firewall-traffic.js';

/**
 * The reload probe: while the firewall is reloaded 100 times, alternating between two
 * configurations, a UDP stream from the Internet to a LAN client port that both
 * configurations drop must never arrive. Any packet counted would be a window in which the
 * old ruleset was gone and the new one not yet in force.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let gateway: LabGateway;
let lab: Lab;
const processes: NsProcess[] = [];

const WAN_ADDRESS = '198.51.100.2';
const CLIENT_ADDRESS = '192.168.11.10';
const PROBE_PORT = 9100;
const RELOADS = 100;

const NETWORK = oneWanOneLan;

/** Two firewall configurations that differ in every section yet both drop the probe. */
const CONFIGURATIONS = [
  () => ({
    ...NETWORK(),
    firewallPortMapping: [row(firewallPortMapping, 'pm1', { name: 'web', proto: 'tcp', wan: 'wan1', extport: 8080, intip: CLIENT_ADDRESS, intport: 80 })],
    firewallAcl: [row(firewallAcl, 'acl1', { name: 'no telnet', target: 'reject', proto: 'tcp', dport: '23' })],
  }),
  () => ({
    ...NETWORK(),
    firewallPortMapping: [row(firewallPortMapping, 'pm2', { name: 'game', proto: 'udp', wan: 'wan1', extport: 27015, extport_end: 27020, intip: '192.168.11.20' })],
    firewallHostMapping: [row(firewallHostMapping, 'hm1', { name: 'server', wan: 'wan1', public: '198.51.100.4', private: '192.168.11.20' })],
    firewallDmz: [row(firewallDmz, 'dmz1', { wan: 'wan1', host: '192.168.11.20' })],
    firewallConnLimit: [row(firewallConnLimit, 'cl1', { name: 'guests', ip: '192.168.11.128/25', perip: 100 })],
    firewallAcl: [row(firewallAcl, 'acl2', { name: 'drop probe', target: 'drop', proto: 'udp', dport: String(PROBE_PORT) })],
  }),
];


beforeAll(async () => {
  gateway = createLabGateway({ clients: 2, httpServer: false });
  lab = gateway.lab;
  setClientAddress(lab, 0, CLIENT_ADDRESS);
  setClientAddress(lab, 1, '192.168.11.20');
  // The upstream routes the LAN to the gateway, so the probe is addressed straight to the client.
  inNs(lab.inet, ['ip', 'route', 'replace', '192.168.11.0/24', 'via', WAN_ADDRESS]);
});

afterAll(async () => {
  for (const proc of processes) proc.kill();
  await gateway?.down();
});

describe('firewall reloads', () => {
  test(`${RELOADS} reloads let through nothing that both rulesets drop`, { timeout: 600_000 }, async () => {
    await gateway.apply(CONFIGURATIONS[0]!());
    const counter = await udpCounter(lab.clients[0]!.ns, '0.0.0.0', PROBE_PORT);
    processes.push(counter);
    const stream = udpStream(lab.inet, CLIENT_ADDRESS, PROBE_PORT, 1);
    processes.push(stream);
    const started = Date.now();
    for (let i = 1; i <= RELOADS; i++) await gateway.apply(CONFIGURATIONS[i % 2]!());
    const elapsed = Date.now() - started;
    const { sent } = await stream.stop();
    const { received } = await counter.stop();
    console.info(`reload probe: ${RELOADS} reloads in ${elapsed} ms, ${sent} datagrams sent, ${received} received`);
    // The stream ran throughout: several datagrams per reload.
    expect(sent).toBeGreaterThan(RELOADS * 4);
    expect(received).toBe(0);

    // The probe itself works: a ruleset that lets it through shows it on the receiver.
    await gateway.apply({
      ...NETWORK(),
      firewallAcl: [row(firewallAcl, 'acl3', { name: 'allow probe', target: 'accept', proto: 'udp', dst: CLIENT_ADDRESS, dport: String(PROBE_PORT) })],
    });
    const control = await udpCounter(lab.clients[0]!.ns, '0.0.0.0', PROBE_PORT);
    processes.push(control);
    const controlStream = udpStream(lab.inet, CLIENT_ADDRESS, PROBE_PORT, 5);
    processes.push(controlStream);
    await new Promise((r) => setTimeout(r, 1000));
    await controlStream.stop();
    expect((await control.stop()).received).toBeGreaterThan(0);
  });
});
