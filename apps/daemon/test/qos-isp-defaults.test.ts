import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cidrRange, ISP_BUILTIN_GROUPS, parseIspFile } from '@portico/schema';
import { NETWORK_FILES } from '../src/domains/network/network-config.js';
import { networkDomain } from '../src/domains/network/network-domain.js';
import { ispNetworks, qosConfigOf } from '../src/domains/qos/qos-config.js';
import { qosRulesetContributor } from '../src/domains/qos/qos-domain.js';
import { ISP_DEFAULTS_DIR, readIspDefaults } from '../src/domains/qos/qos-isp-defaults.js';
import { checkRendered } from './network-checker-run.js';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { FULL_QOS, MULTI_WAN, qosSnapshot, rowOf } from './qos-fixture.js';

const work = mkdtempSync(join(tmpdir(), 'portico-isp-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const network = networkDomain({ port: 8080, systemRoot: '/', driver: 'linux' }, [qosRulesetContributor()]);
const openwrt = networkDomain({ port: 8080, systemRoot: '/', driver: 'openwrt' }, [qosRulesetContributor()]);

/** FULL_QOS with wan1 on telecom and wan2 on mobile, and no uploaded file for either. */
const SHIPPED_ONLY: typeof FULL_QOS = {
  ...FULL_QOS,
  qosLoadBalance: [
    rowOf('qosLoadBalance', 'lb1', { interface: 'wan1', weight: 3, upbandwidth: 20000, downbandwidth: 100000, isp: 'telecom' }),
    rowOf('qosLoadBalance', 'lb2', { interface: 'wan2', weight: 1, upbandwidth: 10000, downbandwidth: 50000, isp: 'mobile' }),
  ],
  qosIsp: [],
};

function rulesetOf(rows: typeof FULL_QOS): string {
  const file = network.render!(qosSnapshot(rows)).flatMap((o) => o.files).find((f) => f.target === NETWORK_FILES.nftables);
  if (!file) throw new Error('no ruleset rendered');
  return file.content;
}

describe('shipped operator definition files', () => {
  it.each(ISP_BUILTIN_GROUPS)('%s: parses, names its source, and lists sorted networks without overlaps', (group) => {
    const text = readFileSync(join(ISP_DEFAULTS_DIR, `${group}.txt`), 'utf8');
    expect(text.split('\n')[1]).toMatch(/^# Source: github\.com\/gaoyifan\/china-operator-ip \S+\.txt at commit [0-9a-f]{40}, MIT License/);
    const networks = parseIspFile(text);
    expect(networks, 'every line a network').not.toBeNull();
    expect(networks!.length).toBeGreaterThan(50);
    let end = -1;
    for (const cidr of networks!) {
      const { first, last } = cidrRange(cidr)!;
      expect(first, `${cidr} after the network before it`).toBeGreaterThan(end);
      end = last;
    }
    expect(readIspDefaults(group)).toEqual(networks);
  });

  it('load balancing uses the shipped networks of a group nobody uploaded a file for, and nft accepts them', async () => {
    const config = qosConfigOf(qosSnapshot(SHIPPED_ONLY));
    expect(config.ispDefaults.telecom).toEqual(readIspDefaults('telecom'));
    expect(ispNetworks(config, 'mobile')).toEqual(readIspDefaults('mobile'));
    const ruleset = rulesetOf(SHIPPED_ONLY);
    const telecom = readIspDefaults('telecom');
    expect(ruleset).toContain(`set qos_isp_telecom { type ipv4_addr; flags interval; auto-merge; elements = { ${telecom[0]}, ${telecom[1]},`);
    expect(ruleset).toContain('ip daddr @qos_isp_mobile ct mark set ct mark | 0x00000200');
    const result = await checkRendered({ target: NETWORK_FILES.nftables, content: ruleset, check: 'nft' }, work);
    if (result.skipped) console.info(result.skipped);
    else expect(result.problems).toEqual([]);
  });

  it('on OpenWrt the fw4 include carries the shipped networks and the route include marks them for mwan3', async () => {
    const files = openwrt.render!(qosSnapshot({ ...SHIPPED_ONLY, ...MULTI_WAN })).flatMap((o) => o.files);
    const table = files.find((f) => f.target.endsWith('30-portico-qos.nft'))!;
    const mobile = readIspDefaults('mobile');
    expect(table.content).toContain(`set qos_isp_mobile { type ipv4_addr; flags interval; auto-merge; elements = { ${mobile[0]}, `);
    const routes = files.find((f) => f.content.includes('@qos_isp_telecom') && f !== table);
    expect(routes, 'a route include that sends the telecom set out by its WAN').toBeDefined();
    for (const file of [table, routes!]) {
      const result = await checkRendered(file, work);
      if (!result.skipped) expect(result.problems).toEqual([]);
    }
  });

  it('an uploaded file replaces the shipped one; shipped files are read only when load balancing uses them', () => {
    const read: string[] = [];
    const reader = (group: string) => (read.push(group), ['198.51.100.0/24']);
    const uploaded = { ...SHIPPED_ONLY, qosIsp: [rowOf('qosIsp', 'i1', { group: 'telecom', name: 'Telecom', networks: ['100.64.0.0/16'] })] };
    const config = qosConfigOf(qosSnapshot(uploaded), reader);
    expect(read).toEqual(['mobile']);
    expect(ispNetworks(config, 'telecom')).toEqual(['100.64.0.0/16']);
    expect(ispNetworks(config, 'custom1')).toEqual([]);
    read.length = 0;
    const off = { ...SHIPPED_ONLY, qosBase: [rowOf('qosBase', '', { qos: true, qosmode: 'smart', p2pblock: true, balance: false })] };
    qosConfigOf(qosSnapshot(off), reader);
    expect(read).toEqual([]);
  });

  it('a missing or broken shipped file stops the rendering instead of routing by an empty list', () => {
    expect(() => readIspDefaults('unicom', work)).toThrow(/ENOENT/);
    writeFileSync(join(work, 'unicom.txt'), '1.2.3.0/24\nnot a network\n');
    expect(() => readIspDefaults('unicom', work)).toThrow(/not an operator definition file/);
  });
});

describe('GET /api/flow/ispinfo/file and /defaults', () => {
  let h: Harness;
  let admin: Client;
  beforeEach(async () => {
    h = await startDaemon();
    admin = await adminClient(h);
  });
  afterEach(async () => h.close());

  it('answers the file a group uses now: shipped, uploaded, or none; and the size of each shipped file', async () => {
    const file = (group: string) => get(h.app, admin, `/api/flow/ispinfo/file?group=${group}`).then(json);
    expect(await file('education')).toEqual({ success: true, data: { group: 'education', source: 'builtin', networks: [...readIspDefaults('education')] } });
    expect(await file('custom2')).toEqual({ success: true, data: { group: 'custom2', source: 'none', networks: [] } });

    const added = json(await post(h.app, admin, '/api/flow/ispinfo', { action: 'add', group: 'education', name: 'Campus', networks: ['192.0.2.0/24'] }));
    expect(added.success, JSON.stringify(added)).toBe(true);
    expect((await file('education')).data).toEqual({ group: 'education', source: 'uploaded', networks: ['192.0.2.0/24'] });
    // Use default: the uploaded entry goes, the shipped file is back.
    expect(json(await post(h.app, admin, '/api/flow/ispinfo', { action: 'delete', id: added.data.id })).success).toBe(true);
    expect((await file('education')).data.source).toBe('builtin');

    const bad = await file('nowhere');
    expect(bad.success).toBe(false);
    expect(bad.errors).toEqual({ group: 'validation.option' });

    const defaults = json(await get(h.app, admin, '/api/flow/ispinfo/defaults'));
    expect(defaults.data.groups).toEqual(ISP_BUILTIN_GROUPS.map((group) => ({ group, count: readIspDefaults(group).length })));
    expect((await get(h.app, null, '/api/flow/ispinfo/defaults')).statusCode).toBe(401);
  });
});
