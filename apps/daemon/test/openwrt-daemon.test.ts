import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import { DOMAIN_MODULES } from '../src/domain-list.js';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

/**
 * The daemon on the openwrt driver, through its API: what the device cannot do is left out of
 * the menu and refused with a message; what it can do is applied to the domains that render it
 * there. The applier records instead of touching the machine.
 */

const applied: Array<{ domains: readonly string[]; snapshot: ConfigSnapshot }> = [];
// The pages under test and what signing in needs; no runtime service that would reach the host.
const MODULES = DOMAIN_MODULES.filter((m) => ['auth', 'admin', 'menu', 'system-time', 'system-info', 'vpn-server', 'audit'].includes(m.name));

async function daemon(driver: string): Promise<Harness> {
  return startDaemon({
    env: { PORTICO_DRIVER: driver },
    deps: { modules: MODULES, config: { applier: { apply: async (domains, snapshot) => void applied.push({ domains, snapshot }) } } },
  });
}

const menuModules = async (h: Harness, admin: Client) =>
  (json(await get(h.app, admin, '/api/menu')).data as Array<{ children: Array<{ module: string }> }>).flatMap((s) => s.children.map((c) => c.module));

let openwrt: Harness;
let admin: Client;
beforeAll(async () => {
  openwrt = await daemon('openwrt');
  admin = await adminClient(openwrt);
});
afterAll(async () => {
  await openwrt.close();
});

describe('the openwrt driver through the API', () => {
  test('the behaviour audit page is not in the menu there; it is on the other drivers. The VPN servers are', async () => {
    const modules = await menuModules(openwrt, admin);
    expect(modules).toContain('openvpnservice');
    expect(modules).toContain('ipsecservice');
    expect(modules).not.toContain('behavioraudit');
    const sim = await daemon('sim');
    try {
      expect(await menuModules(sim, await adminClient(sim))).toEqual(expect.arrayContaining(['ipsecservice', 'behavioraudit']));
    } finally {
      await sim.close();
    }
  });

  test('an IPsec peer is applied through the domain that renders the system charon’s swanctl fragment', async () => {
    const reply = json(
      await post(openwrt.app, admin, '/api/auth/ipsec', { action: 'add', name: 'branch', remote_addr: '198.51.100.9', local_subnets: '192.168.11.0/24', peer_subnets: '10.9.0.0/16', psk: 'a-long-shared-key' }),
    );
    expect(reply.success).toBe(true);
    expect(applied.at(-1)!.domains).toContain('ipsec-server');
    expect(applied.at(-1)!.snapshot.ipsecPeer?.[0]?.data.name).toBe('branch');
  });

  test('the host name is applied through the domain that renders /etc/config/system', async () => {
    const reply = json(await post(openwrt.app, admin, '/api/sysconf/system', { action: 'update', hostname: 'edge-1' }));
    expect(reply.success).toBe(true);
    const last = applied.at(-1)!;
    expect(last.domains).toContain('system-time');
    expect(last.snapshot.systemHost?.[0]?.data.hostname).toBe('edge-1');
  });

  test('the time settings likewise', async () => {
    const reply = json(await post(openwrt.app, admin, '/api/sysconf/time', { action: 'update', timezone: 'Europe/Berlin', ntp_client: true, ntp_servers: ['pool.ntp.org'], ntp_server: true }));
    expect(reply.success).toBe(true);
    expect(applied.at(-1)!.domains).toEqual(['system-time']);
  });
});
