import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { hotspotBlacklist, hotspotPortal, hotspotWhitelist, hotspotZone, networkInterface, writeSchema, type AnyEntity } from '@portico/schema';
import { readSettings, SettingsError } from '../src/settings.js';
import { renderNetwork } from '../src/domains/network/network-render.js';
import { networkConfigOf } from '../src/domains/network/network-domain.js';
import { DEFAULT_RENDER_OPTIONS } from '../src/domains/network/network-config.js';
import { hotspotRulesetPart } from '../src/domains/hotspot/hotspot-ruleset.js';
import { hotspotConfigOf } from '../src/domains/hotspot/hotspot-config.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import { checkRendered } from './network-checker-run.js';
import { startDaemon } from './daemon-harness.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function row(entity: AnyEntity, id: string, input: Record<string, unknown>) {
  const parsed = writeSchema(entity, 'add').safeParse(input);
  if (!parsed.success) throw new Error(`${entity.name}: ${JSON.stringify(parsed.error.issues)}`);
  return { id, data: { ...(parsed.data as object), id } as Record<string, unknown> };
}

const snapshot: ConfigSnapshot = {
  networkInterface: [
    row(networkInterface as unknown as AnyEntity, 'wan1', { ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1' }),
    row(networkInterface as unknown as AnyEntity, 'lan', { ifname: 'lan', role: 'lan', hwport: ['lanp1'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' }),
  ],
  dhcpServer: [],
  hotspotZone: [row(hotspotZone as unknown as AnyEntity, 'z1', { name: 'guests', ifname: 'lan', authmodel: 'webportal', authtime: 1, authtime_unit: 'days' })],
  hotspotPortal: [{ id: '', data: { ...(hotspotPortal.schema.parse({ methods: ['voucher', 'onekey'] }) as object) } }],
  hotspotWhitelist: [
    row(hotspotWhitelist as unknown as AnyEntity, 'w1', { type: 'url', value: 'example.org' }),
    row(hotspotWhitelist as unknown as AnyEntity, 'w2', { type: 'mac', value: '02:11:22:33:44:55' }),
    row(hotspotWhitelist as unknown as AnyEntity, 'w3', { type: 'ip', value: '192.0.2.10' }),
  ],
  hotspotBlacklist: [row(hotspotBlacklist as unknown as AnyEntity, 'b1', { type: 'mac', value: '02:66:66:66:66:66' })],
};

describe('portal port setting', () => {
  test('PORTICO_PORTAL_PORT defaults to 2050, is a port, and differs from the console port', () => {
    expect(readSettings({}).portalPort).toBe(2050);
    expect(readSettings({ PORTICO_PORTAL_PORT: '3990' }).portalPort).toBe(3990);
    expect(() => readSettings({ PORTICO_PORTAL_PORT: '70000' })).toThrow(SettingsError);
    expect(() => readSettings({ PORTICO_PORTAL_PORT: '8080', PORTICO_PORT: '8080' })).toThrow(SettingsError);
  });
});

describe('hotspot ruleset part', () => {
  test('declares runtime sets, redirects and drops for the zone devices; nft and dnsmasq accept it', async () => {
    const config = hotspotConfigOf(snapshot);
    expect(config.zones.map((z) => z.interfaces)).toEqual([['lan']]);
    const outputs = renderNetwork(networkConfigOf(snapshot), DEFAULT_RENDER_OPTIONS, (plan) => [hotspotRulesetPart(config, plan, 2050)!]);
    const files = outputs.flatMap((o) => o.files);
    const nft = files.find((f) => f.target.endsWith('network.nft'))!.content;
    expect(nft).toContain('set hs_auth { type ether_addr . ipv4_addr; flags timeout; size 65536; }');
    // Filled by the data path: per-address byte counters, refreshed by each packet.
    expect(nft).toContain('set hs_acct_up { type ipv4_addr; flags dynamic, timeout; counter; timeout 1h; size 65536; }');
    expect(nft).toContain('ether saddr . ip saddr @hs_auth update @hs_auth_ip { ip saddr } update @hs_acct_up { ip saddr counter } accept');
    expect(nft).toContain('ip daddr @hs_auth_ip update @hs_acct_down { ip daddr counter } accept');
    for (const set of ['hs_auth', 'hs_auth_ip', 'hs_acct_up', 'hs_acct_down']) expect(nft).not.toMatch(new RegExp(`flush set inet portico ${set}\\b`));
    expect(nft).toContain('tcp dport 80 redirect to :2050');
    expect(nft).toContain('elements = { 02:11:22:33:44:55 }');
    const dnsmasq = files.find((f) => f.target.endsWith('dnsmasq.conf'))!.content;
    expect(dnsmasq).toContain('nftset=/example.org/4#inet#portico#hs_white_dns');
    expect(dnsmasq).toContain('dhcp-option=tag:lan,114,"http://192.168.11.1:2050/captive"');
    const dir = mkdtempSync(join(tmpdir(), 'portico-hotspot-check-'));
    dirs.push(dir);
    for (const file of files.filter((f) => f.check === 'nft' || f.check === 'dnsmasq')) {
      const checked = await checkRendered(file, dir);
      expect(checked.problems, file.target).toEqual([]);
    }
  });
});

describe('portal listener', () => {
  test('is a separate server: the console does not answer portal calls, the portal never serves the console API', async () => {
    const dataplane = new SimDataplane();
    const h = await startDaemon({ deps: { hotspot: { dataplane } } });
    try {
      const portal = h.app.hotspot.portal;
      const consoleCaptive = await h.app.inject({ method: 'GET', url: '/captive' });
      expect(consoleCaptive.headers['content-type'] ?? '').not.toContain('captive+json');
      const captive = await portal.inject({ method: 'GET', url: '/captive', remoteAddress: '192.168.11.20', headers: { host: '192.168.11.1:2050' } });
      expect(captive.headers['content-type']).toContain('application/captive+json');
      expect(captive.json()).toMatchObject({ captive: true });
      const redirect = await portal.inject({ method: 'GET', url: '/some/page?q=1', remoteAddress: '192.168.11.20', headers: { host: 'example.com' } });
      expect(redirect.statusCode).toBe(302);
      expect(redirect.headers.location).toContain('/auth/portal?url=http%3A%2F%2Fexample.com%2Fsome%2Fpage%3Fq%3D1');
      const admin = await portal.inject({ method: 'GET', url: '/api/changelang', remoteAddress: '192.168.11.20', headers: { host: '192.168.11.1:2050' } });
      expect(admin.statusCode).toBe(302);
      const login = await portal.inject({ method: 'POST', url: '/portal-api/login', payload: { method: 'onekey' }, remoteAddress: '192.168.11.20' });
      expect(login.json()).toEqual({ success: false, msg: 'msg.reviewFields', errors: { acceptTerms: 'validation.required' } });
    } finally {
      await h.close();
    }
  });
});
