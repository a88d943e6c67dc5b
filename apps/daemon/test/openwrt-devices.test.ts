import { describe, expect, test } from 'vitest';
import { systemRegistry } from '../src/domain-list.js';
import { firewallSnapshot } from './firewall-fixture.js';

/**
 * netifd names a PPPoE WAN's session `pppoe-<interface>` (the linux driver's pppd is told
 * `ppp-<interface>`): every file the openwrt driver renders that names WAN devices must use
 * OpenWrt's name, or its rules and qdiscs would sit on a device that never exists there.
 */
describe('WAN devices on the openwrt driver', () => {
  test('the firewall, remote access, Smart QoS’s ruleset and its tc script name the PPPoE WAN pppoe-wan2', () => {
    const registry = systemRegistry({ driver: 'openwrt' });
    // The representative network has wan2 on PPPoE.
    const snapshot = firewallSnapshot({
      firewallPortMapping: [{ name: 'game', proto: 'tcp', extport: 27015, intip: '192.168.1.11' }],
      remoteAccess: { enabled: true, port: 8443 },
      qosBase: { qos: true, qosmode: 'smart', p2pblock: false, balance: false },
    });
    const files = registry.renderEach(['network', 'qos'], snapshot).flatMap((entry) => entry.outputs ?? []).flatMap((o) => o.files);
    const naming = files.filter((f) => f.content.includes('wan2') && (f.target.startsWith('/usr/share/nftables.d/') || f.target === '/etc/portico/qos.tc'));
    expect(naming.map((f) => f.target).sort()).toEqual([
      '/etc/portico/qos.tc',
      '/usr/share/nftables.d/chain-pre/dstnat/40-portico-remote-access.nft',
      '/usr/share/nftables.d/chain-pre/input/40-portico-remote-access.nft',
      '/usr/share/nftables.d/ruleset-post/30-portico-qos.nft',
      '/usr/share/nftables.d/table-post/30-portico-firewall.nft',
    ]);
    for (const file of naming) {
      expect(file.content, file.target).toContain('pppoe-wan2');
      expect(file.content, file.target).not.toMatch(/(?<!pppoe-)\bppp-wan2\b/);
    }
    expect(files.find((f) => f.target === '/etc/portico/qos.tc')!.content).toMatch(/dev pppoe-wan2 root/);
  });

  test('the linux driver keeps pppd’s ppp-wan2', () => {
    const registry = systemRegistry({ driver: 'linux' });
    const snapshot = firewallSnapshot({ qosBase: { qos: true, qosmode: 'smart', p2pblock: false, balance: false } });
    const files = registry.renderEach(['network', 'qos'], snapshot).flatMap((entry) => entry.outputs ?? []).flatMap((o) => o.files);
    expect(files.find((f) => f.target === '/etc/portico/qos.tc')!.content).toMatch(/dev ppp-wan2 root/);
    expect(files.some((f) => f.content.includes('pppoe-wan2'))).toBe(false);
  });
});
