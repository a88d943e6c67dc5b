import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { firewallConnLimit, firewallHostMapping, firewallNat, firewallSessionLimit, writeSchema, type AnyEntity } from '@portico/schema';
import { inNs, SERVER_ADDRESS, type Lab, setClientAddress } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { createLabGateway, row, type LabGateway, oneWanOneLan } from './lab-gateway.js';
import { holdConnections, holdServer, whoami, whoamiServer, type NsProcess } from './firewall-traffic.js';

/** Connection limits, NAT rules and host mapping with real traffic, through the linux driver's applier. */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let gateway: LabGateway;
let lab: Lab;
const processes: NsProcess[] = [];

const WAN_ADDRESS = '198.51.100.2';
const SNAT_ADDRESS = '198.51.100.3';
const PUBLIC_ADDRESS = '198.51.100.4';
const WHOAMI_PORT = 7000;
const HOLD_PORT = 7001;

const NETWORK = oneWanOneLan;

/** A singleton as stored: one row with an empty id. */
function single(entity: AnyEntity, input: Record<string, unknown>) {
  const parsed = writeSchema(entity, 'update').safeParse(input);
  if (!parsed.success) throw new Error(`${entity.name}: ${JSON.stringify(parsed.error.issues)}`);
  return [{ id: '', data: parsed.data as Record<string, unknown> }];
}

/** The NAT tests hold no connections; the limits are off so nothing but NAT is in play. */
const NO_LIMIT = () => ({ firewallSessionLimit: single(firewallSessionLimit, { enabled: false }) });


beforeAll(async () => {
  gateway = createLabGateway({ clients: 2 });
  lab = gateway.lab;
  setClientAddress(lab, 0, '192.168.11.10');
  setClientAddress(lab, 1, '192.168.11.20');
  // Upstream: the ISP routes the LAN (for "no NAT") and the extra public addresses to the gateway.
  inNs(lab.inet, ['ip', 'route', 'replace', '192.168.11.0/24', 'via', WAN_ADDRESS]);
  const wanMac = JSON.parse(inNs(lab.gw, ['ip', '-j', 'link', 'show', lab.wan1]).stdout)[0].address as string;
  for (const extra of [SNAT_ADDRESS, PUBLIC_ADDRESS]) inNs(lab.inet, ['ip', 'neigh', 'replace', extra, 'lladdr', wanMac, 'dev', 'up1', 'nud', 'permanent']);
  processes.push(await whoamiServer(lab.inet, SERVER_ADDRESS, WHOAMI_PORT));
  processes.push(await holdServer(lab.inet, SERVER_ADDRESS, HOLD_PORT));
  processes.push(await whoamiServer(lab.clients[0]!.ns, '0.0.0.0', WHOAMI_PORT));
});

afterAll(async () => {
  for (const proc of processes) proc.kill();
  await gateway?.down();
});

describe('connection limits', () => {
  test('a client over its per-IP limit has its next connection refused; another client keeps its own count', async () => {
    await gateway.apply({
      ...NETWORK(),
      firewallSessionLimit: single(firewallSessionLimit, { enabled: true, perip: 4, tcp: 0, udp: 0 }),
    });
    inNs(lab.gw, ['conntrack', '-F'], { allowFail: true });
    expect(holdConnections(lab.clients[0]!.ns, SERVER_ADDRESS, HOLD_PORT, 6)).toEqual({ connected: 4, refused: 2 });
    // The held connections are closed now; the second client starts from zero.
    expect(holdConnections(lab.clients[1]!.ns, SERVER_ADDRESS, HOLD_PORT, 3)).toEqual({ connected: 3, refused: 0 });
  });

  test('a range row replaces the default limit for its addresses; exempt addresses are never limited', async () => {
    await gateway.apply({
      ...NETWORK(),
      firewallSessionLimit: single(firewallSessionLimit, { enabled: true, perip: 4, tcp: 0, udp: 0, exempt: ['192.168.11.20'] }),
      firewallConnLimit: [row(firewallConnLimit, 'cl1', { name: 'tight', ip: '192.168.11.0/28', perip: 2, tcp: 0, udp: 0 })],
    });
    inNs(lab.gw, ['conntrack', '-F'], { allowFail: true });
    await new Promise((r) => setTimeout(r, 200));
    expect(holdConnections(lab.clients[0]!.ns, SERVER_ADDRESS, HOLD_PORT, 4)).toEqual({ connected: 2, refused: 2 });
    expect(holdConnections(lab.clients[1]!.ns, SERVER_ADDRESS, HOLD_PORT, 6)).toEqual({ connected: 6, refused: 0 });
  });
});

describe('NAT rules', () => {
  test('SNAT, no NAT and the default masquerade each give the source address configured', async () => {
    await gateway.apply({
      ...NETWORK(),
      ...NO_LIMIT(),
      firewallNat: [
        row(firewallNat, 'n1', { name: 'pool', target: 'snat', src: '192.168.11.10', outif: 'wan1', toaddr: SNAT_ADDRESS }),
        row(firewallNat, 'n2', { name: 'routed', target: 'nonat', src: '192.168.11.20', dst: SERVER_ADDRESS }),
      ],
    });
    inNs(lab.gw, ['conntrack', '-F'], { allowFail: true });
    await expect.poll(() => whoami(lab.clients[0]!.ns, SERVER_ADDRESS, WHOAMI_PORT), { timeout: 8000 }).toBe(SNAT_ADDRESS);
    expect(whoami(lab.clients[1]!.ns, SERVER_ADDRESS, WHOAMI_PORT)).toBe('192.168.11.20');
    // Without the rules both are masqueraded behind the WAN address.
    await gateway.apply({ ...NETWORK(), ...NO_LIMIT() });
    inNs(lab.gw, ['conntrack', '-F'], { allowFail: true });
    await expect.poll(() => whoami(lab.clients[0]!.ns, SERVER_ADDRESS, WHOAMI_PORT), { timeout: 8000 }).toBe(WAN_ADDRESS);
    expect(whoami(lab.clients[1]!.ns, SERVER_ADDRESS, WHOAMI_PORT)).toBe(WAN_ADDRESS);
  });
});

describe('host mapping', () => {
  test('the public address reaches the LAN host, and the host goes out with the public address', async () => {
    await gateway.apply({
      ...NETWORK(),
      ...NO_LIMIT(),
      firewallHostMapping: [row(firewallHostMapping, 'hm1', { name: 'server', wan: 'wan1', public: PUBLIC_ADDRESS, private: '192.168.11.10' })],
    });
    inNs(lab.gw, ['conntrack', '-F'], { allowFail: true });
    // Inbound: inet sees the LAN host's server behind the public address, with inet's own address kept.
    await expect.poll(() => whoami(lab.inet, PUBLIC_ADDRESS, WHOAMI_PORT), { timeout: 8000 }).toBe('198.51.100.1');
    // Outbound: the mapped host leaves with its public address; the other client is masqueraded.
    expect(whoami(lab.clients[0]!.ns, SERVER_ADDRESS, WHOAMI_PORT)).toBe(PUBLIC_ADDRESS);
    expect(whoami(lab.clients[1]!.ns, SERVER_ADDRESS, WHOAMI_PORT)).toBe(WAN_ADDRESS);
    // The gateway's own WAN address is not diverted.
    expect(whoami(lab.inet, WAN_ADDRESS, WHOAMI_PORT)).toBe('');
  });
});
