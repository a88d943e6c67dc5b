import { describe, expect, it } from 'vitest';
import {
  allRoutePaths,
  ENTITIES,
  entityByName,
  entityFormAt,
  entityFormRoutes,
  MENU_MAP,
  refFields,
  subRoutePaths,
  childPath,
  type AnyEntity,
} from '../src/index.js';

const byName = (name: string) => entityByName(name) as AnyEntity;

describe('fields that name other entities', () => {
  it('each reference names a declared entity and fields its schema has', () => {
    for (const entity of ENTITIES) {
      for (const field of refFields(entity)) {
        expect(entity.schema.shape[field.name], `${entity.name}.${field.name}`).toBeDefined();
        expect(field.ref.length, `${entity.name}.${field.name}`).toBeGreaterThan(0);
        for (const source of field.ref) {
          const target = entityByName(source.entity);
          expect(target, `${entity.name}.${field.name} -> ${source.entity}`).toBeDefined();
          for (const name of [source.value, source.label, source.where?.field]) {
            if (name) expect(target!.schema.shape[name], `${source.entity}.${name}`).toBeDefined();
          }
        }
      }
    }
  });

  it('every interface and billing plan a record names is declared as a reference', () => {
    const declared = ENTITIES.flatMap((entity) => refFields(entity).map((f) => `${entity.name}.${f.name}`)).sort();
    expect(declared).toEqual(
      [
        'apMacFilter.group',
        'arpBind.interface',
        'dhcpServer.interface',
        'firewallAcl.iface',
        'firewallDmz.wan',
        'firewallHostMapping.wan',
        'firewallLanForward.lan',
        'firewallLanForward.rejlan',
        'firewallNat.outif',
        'firewallPortMapping.wan',
        'firewallShareBlock.ifname',
        'hotspotLocalNotice.interfaces',
        'hotspotPlan.switch_plan',
        'hotspotUser.model',
        'hotspotUserBatch.model',
        'hotspotZone.ifname',
        'iptv.wan',
        'l2tpServer.interfaces',
        'pppoeServer.interfaces',
        'pptpServer.interfaces',
        'multiWan.interface',
        'qosDomainRule.interface',
        'qosLoadBalance.interface',
        'qosPortRule.interface',
        'staticRoute.interface',
        'wirelessSsid.group',
      ].sort(),
    );
  });

  it('a WAN field offers WAN interfaces only, a LAN-side field no WAN', () => {
    const wan = refFields(byName('multiWan')).find((f) => f.name === 'interface')!.ref;
    expect(wan).toEqual([{ entity: 'networkInterface', value: 'ifname', where: { field: 'role', equals: 'wan' } }]);
    const zone = refFields(byName('hotspotZone')).find((f) => f.name === 'ifname')!.ref;
    expect(zone.map((s) => s.entity)).toEqual(['networkInterface', 'vlan']);
    expect(zone[0]!.where).toEqual({ field: 'role', in: ['lan', 'bond'] });
    const plan = refFields(byName('hotspotUser')).find((f) => f.name === 'model')!.ref;
    expect(plan).toEqual([{ entity: 'hotspotPlan', value: 'name' }]);
  });
});

describe('form sub-routes', () => {
  it('add and edit by default, a prefix, or one pair per option of a field', () => {
    expect(entityFormRoutes(byName('adminUser')).map((r) => r.segment)).toEqual(['add', 'edit']);
    expect(entityFormRoutes(byName('qosMacRule')).map((r) => r.segment)).toEqual(['macadd', 'macedit']);
    const vpn = entityFormRoutes(byName('vpnClient'));
    expect(vpn.map((r) => r.segment)).toEqual(['pptpadd', 'pptpedit', 'l2tpadd', 'l2tpedit', 'openvpnadd', 'openvpnedit', 'ipsecadd', 'ipsecedit']);
    expect(vpn[2]).toEqual({ segment: 'l2tpadd', mode: 'add', preset: { field: 'type', value: 'l2tp' } });
  });

  it('every add or edit sub-route the route map gives an entity page is one of its forms', () => {
    const entityRoutes = new Set(ENTITIES.flatMap((e) => (e.route ? [e.route] : [])));
    const all = new Set(allRoutePaths());
    // The white and black lists' typed sub-routes (macedit, ipedit, domainedit) are views of the
    // list by entry type, not forms.
    const typedListViews = new Set(['/hotspot/whitelistconfig', '/hotspot/blacklistconfig']);
    for (const section of MENU_MAP) {
      for (const child of section.children) {
        const page = childPath(section, child);
        if (!entityRoutes.has(page) || typedListViews.has(page)) continue;
        for (const path of subRoutePaths(section, child)) {
          const segment = path.slice(page.length + 1);
          if (entityRoutes.has(path) || !/(add|edit)$/.test(segment)) continue;
          expect(entityFormAt(page, segment), path).toBeDefined();
        }
      }
    }
    expect(entityFormAt('/smartqos/flowcontrol', 'macedit')?.entity.name).toBe('qosMacRule');
    expect(entityFormAt('/smartqos/flowcontrol', 'ipadd')?.entity.name).toBe('qosIpRule');
    expect(all.has('/smartqos/flowcontrol/macadd')).toBe(true);
  });
});
