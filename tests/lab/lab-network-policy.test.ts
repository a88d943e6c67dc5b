import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { arpBind, multiWan } from '@portico/schema';
import { inNs, SERVER_ADDRESS, setClientAddress, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { createLabGateway, row, twoWansOneLan, type LabGateway } from './lab-gateway.js';

/** ARP binding and multi-WAN failover, with the same real applier as the DHCP/NAT suite. */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let gateway: LabGateway;
let lab: Lab;
const fetchUpstream = (ns: string, tries?: number) => gateway.fetchUpstream(ns, tries);

/** Answers pings in `inet` only: the WAN health monitor's track address, off the server's path. */
const TRACK_ADDRESS = '192.0.2.1';

function snapshot(trackIps: string[] = []) {
  return {
    ...twoWansOneLan(),
    multiWan: [
      row(multiWan, 'mw1', { interface: 'wan1', mode: 'failover', priority: 1, track_ips: trackIps }),
      row(multiWan, 'mw2', { interface: 'wan2', mode: 'failover', priority: 2 }),
    ],
    arpBind: [row(arpBind, 'bound', { ip: '192.168.11.10', mac: lab.clients[1]!.mac, interface: 'lan' })],
  };
}

beforeAll(async () => {
  gateway = createLabGateway({ clients: 2 });
  lab = gateway.lab;
  await gateway.apply(snapshot());
});

afterAll(async () => {
  await gateway?.down();
});

describe('ARP binding', () => {
  test('a client spoofing a bound address is stopped; the bound client passes', async () => {
    setClientAddress(lab, 0, '192.168.11.10');
    expect(await fetchUpstream(lab.clients[0]!.ns, 3)).toBe(false);
    inNs(lab.clients[0]!.ns, ['ip', 'addr', 'flush', 'dev', lab.clients[0]!.ifname]);
    setClientAddress(lab, 1, '192.168.11.10');
    expect(await fetchUpstream(lab.clients[1]!.ns)).toBe(true);
  });
});

describe('multi-WAN failover', () => {
  test('traffic leaves by the first WAN, and by the second when the first link goes down', async () => {
    const via = () => inNs(lab.gw, ['ip', 'route', 'get', SERVER_ADDRESS]).stdout;
    expect(via()).toContain('dev wan1');
    expect(await fetchUpstream(lab.clients[1]!.ns)).toBe(true);

    inNs(lab.inet, ['ip', 'link', 'set', 'up1', 'down']);
    try {
      await expect.poll(via, { timeout: 5000 }).toContain('dev wan2');
      expect(await fetchUpstream(lab.clients[1]!.ns)).toBe(true);
      // The gateway's connection table: replies came back to the second WAN's address.
      const seen = inNs(lab.gw, ['conntrack', '-L', '-p', 'tcp'], { allowFail: true }).stdout;
      expect(seen).toMatch(/src=192\.0\.2\.80 dst=203\.0\.113\.2/);
    } finally {
      inNs(lab.inet, ['ip', 'link', 'set', 'up1', 'up']);
    }
    await expect.poll(via, { timeout: 5000 }).toContain('dev wan1');
  });
});

describe('multi-WAN track IPs', () => {
  test('a WAN whose link stays up but whose upstream is dead is taken out, and put back when it answers again', async () => {
    const via = () => inNs(lab.gw, ['ip', 'route', 'get', SERVER_ADDRESS]).stdout;
    inNs(lab.inet, ['ip', 'addr', 'add', `${TRACK_ADDRESS}/32`, 'dev', 'lo']);
    await gateway.apply(snapshot([TRACK_ADDRESS]));
    expect(via()).toContain('dev wan1');
    // Everything arriving from the first WAN is dropped beyond its gateway; ARP still
    // answers and the link stays up, so only the probes can tell.
    const cut = ['table inet labcut {', '\tchain pre {', '\t\ttype filter hook prerouting priority -300; policy accept;', '\t\tiifname "up1" meta nfproto ipv4 drop', '\t}', '}', ''].join('\n');
    inNs(lab.inet, ['nft', '-f', '-'], { input: cut });
    try {
      expect(inNs(lab.gw, ['ip', 'link', 'show', 'wan1']).stdout).toContain('state UP');
      await expect.poll(via, { timeout: 40_000, interval: 500 }).toContain('dev wan2');
      expect(await fetchUpstream(lab.clients[1]!.ns)).toBe(true);
    } finally {
      inNs(lab.inet, ['nft', 'delete', 'table', 'inet', 'labcut']);
    }
    await expect.poll(via, { timeout: 40_000, interval: 500 }).toContain('dev wan1');
    expect(await fetchUpstream(lab.clients[1]!.ns)).toBe(true);
  }, 120_000);
});
