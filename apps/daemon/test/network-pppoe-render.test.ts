import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writeSchema } from '@portico/schema';
import { HOSTILE_STRINGS } from '@portico/schema/testing';
import type { RenderedFile } from '../src/engine/engine-types.js';
import type { NetworkConfig } from '../src/domains/network/network-config.js';
import { planNetwork } from '../src/domains/network/network-plan.js';
import { renderPppoeFiles } from '../src/domains/network/network-pppoe.js';
import { renderNetwork } from '../src/domains/network/network-render.js';
import { checkPppdOptions, checkPppSecret, readPppSecret } from '../src/domains/network/network-vpn-pppd.js';
import { buildConfig, entityNamed, PLAIN_LINKS, REPRESENTATIVE, type ConfigInput } from './network-fixture.js';

const here = dirname(fileURLToPath(import.meta.url));
const goldenDir = join(here, 'golden', 'network-pppoe');
const update = process.env.UPDATE_GOLDEN === '1';

/** One PPPoE WAN alone: untagged, its own DNS servers, IPv6, an MTU below what pppd takes. */
const SINGLE: ConfigInput = {
  ...PLAIN_LINKS,
  interfaces: [
    { ifname: 'dsl', role: 'wan', hwport: ['eth0'], proto: 'pppoe', pppoe_username: 'a.b+c@isp.example', pppoe_password: `p'a"s s\\#`, dns: ['198.51.100.53'], mtu: 100, mru: 1480, ipv6: 'dhcpv6' },
    { ifname: 'lan', role: 'lan', hwport: ['eth2'], ipaddr: '192.168.1.1', netmask: '255.255.255.0' },
  ],
  vlans: [],
  dhcpServers: [],
  dhcpStatic: [],
  staticRoutes: [],
  arpBinds: [],
  multiWan: [],
};

function pppoe(config: NetworkConfig): RenderedFile[] {
  return renderPppoeFiles(planNetwork(config));
}

describe('PPPoE WAN files', () => {
  const rep = pppoe(buildConfig(REPRESENTATIVE));
  const single = pppoe(buildConfig(SINGLE));

  it('golden: the single-WAN files equal their golden copies (UPDATE_GOLDEN=1 rewrites them)', () => {
    for (const file of single) {
      const golden = join(goldenDir, basename(file.target));
      if (update) {
        mkdirSync(goldenDir, { recursive: true });
        writeFileSync(golden, file.content);
      }
      expect(existsSync(golden), golden).toBe(true);
      expect(file.content, file.target).toBe(readFileSync(golden, 'utf8'));
    }
  });

  it('an options file and a 0600 secret per PPPoE WAN, named by the WAN index, part of the network render', () => {
    expect(rep.map((f) => [f.target, f.mode ?? 0o644])).toEqual([
      ['/etc/portico/ppp/wan2.options', 0o644],
      ['/etc/portico/ppp/wan2.secret', 0o600],
    ]);
    const targets = renderNetwork(buildConfig(REPRESENTATIVE))[0]!.files.map((f) => f.target);
    expect(targets).toEqual(expect.arrayContaining(rep.map((f) => f.target)));
    expect(pppoe(buildConfig(PLAIN_LINKS))).toEqual([]);
  });

  it('the plugin runs on the tagged link, the PPP device is the plan l3 device, the route takes the plan metric', () => {
    const options = rep[0]!.content;
    const plan = planNetwork(buildConfig(REPRESENTATIVE));
    const wan = plan.wans.find((w) => w.name === 'wan2')!;
    expect(options).toContain(`plugin pppoe.so\nnic-${wan.link}\nuser user@isp\nifname ${wan.l3}\n`);
    expect(wan.l3).toBe('ppp-wan2');
    expect(options).toContain(`defaultroute\ndefaultroute-metric ${wan.metric}\n`);
    expect(options).toContain(`# Multi-WAN: routing table ${wan.table} and source rule, set by the link hook on link up.`);
    expect(options).toContain('mtu 1492\nmru 1492\n');
    // No configured DNS: the ISP's servers are asked for and go to the WAN resolver file.
    expect(options).toContain('usepeerdns\n');
    expect(options).toContain('/run/portico/resolv.wan');
    expect(options).toContain('noipv6\n');
    expect(readPppSecret(rep[1]!.content)).toBe('secret-1');
  });

  it('single WAN: untagged port, configured DNS instead of the peer, IPv6, MTU raised to what pppd takes', () => {
    const options = single[0]!.content;
    expect(options).toContain('nic-eth0\nuser a.b+c@isp.example\nifname ppp-dsl\n');
    expect(options).not.toContain('usepeerdns');
    expect(options).not.toContain('Multi-WAN');
    expect(options).toContain('mtu 128\nmru 1480\n');
    expect(options).toContain('+ipv6\n');
    expect(readPppSecret(single[1]!.content)).toBe(`p'a"s s\\#`);
    expect(single[1]!.content).not.toContain('p\'a');
  });

  it('every file passes the pppd options or secret check', () => {
    for (const file of [...rep, ...single]) {
      const check = file.target.endsWith('.secret') ? checkPppSecret : checkPppdOptions;
      expect(check(file.content), file.target).toEqual([]);
    }
  });
});

describe('hostile strings in the PPPoE account', () => {
  it('accepted user names and passwords render, pass the checks and keep every line in place', () => {
    const entity = entityNamed('networkInterface');
    const base = buildConfig(SINGLE);
    const original = (SINGLE.interfaces as Array<Record<string, unknown>>)[0]!;
    const shape = (files: RenderedFile[]) => files.map((f) => `${f.target} ${f.mode} ${f.content.replace(/^(user|password-hex) .*$/gm, '$1 w')}`);
    const baseline = shape(pppoe(base));
    let accepted = 0;
    for (const field of ['pppoe_username', 'pppoe_password']) {
      for (const hostile of HOSTILE_STRINGS) {
        const result = writeSchema(entity, 'add').safeParse({ ...original, [field]: hostile });
        if (!result.success) continue;
        accepted++;
        const row = { ...(result.data as object), id: 'networkInterface-1' } as NetworkConfig['interfaces'][number];
        const files = pppoe({ ...base, interfaces: [row, ...base.interfaces.slice(1)] });
        const what = `${field} = ${JSON.stringify(hostile.slice(0, 40))}`;
        expect(shape(files), what).toEqual(baseline);
        expect(checkPppdOptions(files[0]!.content), what).toEqual([]);
        expect(checkPppSecret(files[1]!.content), what).toEqual([]);
        if (field === 'pppoe_password') expect(readPppSecret(files[1]!.content), what).toBe(hostile);
      }
    }
    expect(accepted).toBeGreaterThan(10);
  }, 120_000);
});
