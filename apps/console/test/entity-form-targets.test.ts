import { describe, expect, test } from 'vitest';
import { entityByName, type AnyEntity } from '@portico/schema';
import { addActions, editTarget, listAddressOf } from '../src/pages/entity/entity-routes.js';

const entity = (name: string) => entityByName(name) as AnyEntity;

describe('where Add and Edit lead', () => {
  test('declared add/edit sub-routes are pages; ids are encoded', () => {
    const subRoutes = ['/system/usermanagement/add', '/system/usermanagement/edit'];
    const admin = entity('adminUser');
    expect(addActions(admin, '/system/usermanagement', subRoutes)).toEqual([
      { key: 'add', target: { kind: 'page', path: '/system/usermanagement/add' } },
    ]);
    expect(editTarget(admin, '/system/usermanagement', subRoutes, {}, 'a&b=c')).toEqual({
      kind: 'page',
      path: '/system/usermanagement/edit?id=a%26b%3Dc',
    });
  });

  test('without a sub-route the form opens in a drawer (interfaces, service zones, the ISP list)', () => {
    expect(addActions(entity('networkInterface'), '/netconf/interface', [])).toEqual([{ key: 'add', target: { kind: 'drawer' } }]);
    expect(editTarget(entity('hotspotZone'), '/hotspot/servicezone', [], {}, '1')).toEqual({ kind: 'drawer' });
  });

  test('edit routed, add not: load balance and port attributes add in a drawer, edit on /edit', () => {
    const subRoutes = ['/smartqos/loadbalance/edit'];
    const lb = entity('qosLoadBalance');
    expect(addActions(lb, '/smartqos/loadbalance', subRoutes)[0]!.target).toEqual({ kind: 'drawer' });
    expect(editTarget(lb, '/smartqos/loadbalance', subRoutes, {}, '4')).toEqual({ kind: 'page', path: '/smartqos/loadbalance/edit?id=4' });
  });

  test('IP and MAC bandwidth rules use their prefixed sub-routes', () => {
    const subRoutes = ['ipadd', 'macadd', 'ipedit', 'macedit'].map((s) => `/smartqos/flowcontrol/${s}`);
    expect(addActions(entity('qosMacRule'), '/smartqos/flowcontrol', subRoutes)[0]!.target).toEqual({
      kind: 'page',
      path: '/smartqos/flowcontrol/macadd',
    });
    expect(editTarget(entity('qosIpRule'), '/smartqos/flowcontrol', subRoutes, {}, '2')).toEqual({
      kind: 'page',
      path: '/smartqos/flowcontrol/ipedit?id=2',
    });
    expect(listAddressOf(entity('qosMacRule'), '/smartqos/flowcontrol/macadd')).toBe('/smartqos/flowcontrol?tab=qosMacRule');
    expect(listAddressOf(entity('adminUser'), '/system/usermanagement/add')).toBe('/system/usermanagement');
  });

  test('VPN clients: one Add per type the menu routes (OpenVPN and IPsec need vlan); edit by the row type', () => {
    const vpn = entity('vpnClient');
    const base = '/netconf/vpnclient';
    const reduced = ['pptpadd', 'pptpedit', 'l2tpadd', 'l2tpedit'].map((s) => `${base}/${s}`);
    const full = [...reduced, ...['openvpnadd', 'openvpnedit', 'ipsecadd', 'ipsecedit', 'ipseclog'].map((s) => `${base}/${s}`)];
    expect(addActions(vpn, base, reduced).map((a) => a.key)).toEqual(['pptp', 'l2tp']);
    const adds = addActions(vpn, base, full);
    expect(adds.map((a) => a.key)).toEqual(['pptp', 'l2tp', 'openvpn', 'ipsec']);
    expect(adds[3]).toEqual({ key: 'ipsec', preset: { field: 'type', value: 'ipsec' }, target: { kind: 'page', path: `${base}/ipsecadd` } });
    expect(editTarget(vpn, base, full, { type: 'l2tp' }, '9')).toEqual({ kind: 'page', path: `${base}/l2tpedit?id=9` });
    // An IPsec row on a device without vlan has no edit page: the form opens in place.
    expect(editTarget(vpn, base, reduced, { type: 'ipsec' }, '9')).toEqual({ kind: 'drawer' });
  });
});
