import { describe, expect, it } from 'vitest';
import { fieldErrors, writeSchema, type AnyEntity } from '../src/entity/define-entity.js';
import { ENTITIES, entityByPath } from '../src/entity/entity-registry.js';
import { MENU_MAP } from '../src/menu/menu-map.js';
import {
  FLOW_CHART_RANGES,
  formatIspFile,
  ISP_GROUPS,
  parseIspFile,
  QOS_CLASSES,
  QOS_RULES,
  qosBase,
  qosDomainRule,
  qosIpRule,
  qosIsp,
  qosLoadBalance,
  qosMacRule,
  qosPortRule,
  usernetAddresses,
  usernetRange,
} from '../src/qos/index.js';

const any = (e: unknown) => e as AnyEntity;

function errorsOf(entity: unknown, input: object, mode: 'add' | 'update' = 'add'): Record<string, string> {
  const result = writeSchema(any(entity), mode).safeParse(input);
  return result.success ? {} : fieldErrors(result.error);
}

function parse(entity: unknown, input: object): Record<string, unknown> {
  const result = writeSchema(any(entity), 'add').safeParse(input);
  if (!result.success) throw new Error(JSON.stringify(fieldErrors(result.error)));
  return result.data as Record<string, unknown>;
}

describe('Smart QoS constants (spec §9)', () => {
  it('has the four priority classes, the ISP groups and the flow chart ranges', () => {
    expect(QOS_CLASSES).toEqual(['priority', 'express', 'normal', 'bulk']);
    expect(ISP_GROUPS).toEqual(['default', 'telecom', 'mobile', 'unicom', 'education', 'custom1', 'custom2', 'custom3', 'none']);
    expect(Object.values(FLOW_CHART_RANGES)).toEqual([300, 1800, 3600, 86_400, 604_800, 2_592_000]);
  });

  it('declares every entity once, under flow/ paths, in the smartqos module', () => {
    const names = ['qosBase', 'qosIpRule', 'qosMacRule', 'qosPortRule', 'qosDomainRule', 'qosLoadBalance', 'qosIsp'];
    for (const name of names) {
      const entity = ENTITIES.find((e) => e.name === name)!;
      expect(entity.module).toBe('smartqos');
      expect(entity.path.startsWith('flow/')).toBe(true);
      expect(entityByPath(entity.path)).toBe(entity);
    }
    for (const path of ['flow/qos', 'flow/qosclass', 'flow/loadbalance', 'flow/ispinfo', 'flow/policyroute']) expect(entityByPath(path)).toBeDefined();
    const pages = MENU_MAP.find((m) => m.path === '/smartqos')!.children.map((c) => `/smartqos/${c.path.replace(/^\//, '')}`);
    for (const entity of ENTITIES.filter((e) => e.module === 'smartqos' && e.route)) expect(pages).toContain(entity.route);
  });
});

describe('qosBase', () => {
  it('defaults to off, smart mode', () => {
    expect(parse(qosBase, {})).toEqual({ qos: false, qosmode: 'smart', p2pblock: false, balance: false });
    expect(errorsOf(qosBase, { qosmode: 'fast' })).toEqual({ qosmode: 'validation.option' });
  });
});

describe('IP and MAC bandwidth rules', () => {
  it('accepts an address, a range or a network, up to 256 addresses', () => {
    for (const usernet of ['192.168.1.10', '192.168.1.10-192.168.1.20', '192.168.1.0/24']) expect(errorsOf(qosIpRule, { name: 'a', usernet })).toEqual({});
    expect(errorsOf(qosIpRule, { name: 'a', usernet: '10.0.0.0/23' })).toEqual({ usernet: 'validation.tooBig' });
    expect(errorsOf(qosIpRule, { name: 'a', usernet: '10.0.0.9-10.0.0.1' })).toEqual({ usernet: 'validation.accessIp' });
    expect(errorsOf(qosIpRule, { name: 'a', usernet: '10.0.0.1;reboot' })).toEqual({ usernet: 'validation.accessIp' });
    expect(usernetAddresses('192.168.1.0/30')).toEqual(['192.168.1.1', '192.168.1.2']);
    expect(usernetRange('192.168.1.7')).toEqual({ first: 3232235783, last: 3232235783 });
  });

  it('checks speeds, clock times and weekdays', () => {
    const base = { name: 'a', usernet: '10.0.0.1' };
    expect(errorsOf(qosIpRule, { ...base, upspeed1: -1 })).toEqual({ upspeed1: 'validation.speed.range' });
    expect(errorsOf(qosIpRule, { ...base, timestart: '25:00' })).toEqual({ timestart: 'validation.invalid' });
    expect(errorsOf(qosIpRule, { ...base, timestart: '08:00', timestop: '08:00' })).toEqual({ timestop: 'validation.invalid' });
    expect(errorsOf(qosIpRule, { ...base, weekdays: [] })).toEqual({ weekdays: 'validation.required' });
    expect(errorsOf(qosIpRule, { ...base, weekdays: ['mon', 'mon'] })).toEqual({ weekdays: 'validation.invalid' });
    expect(errorsOf(qosIpRule, { ...base, weekdays: ['funday'] })).toEqual({ weekdays: 'validation.option' });
    // Overnight windows are allowed.
    expect(errorsOf(qosIpRule, { ...base, timestart: '22:00', timestop: '06:00' })).toEqual({});
    expect(parse(qosIpRule, base)).toMatchObject({ enabled: true, weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], timestart: '00:00', timestop: '24:00' });
  });

  it('normalises MAC rules and refuses group addresses', () => {
    expect(parse(qosMacRule, { name: 'tv', usernet: '02-00-00-00-00-AA' }).usernet).toBe('02:00:00:00:00:aa');
    expect(errorsOf(qosMacRule, { name: 'tv', usernet: 'ff:ff:ff:ff:ff:ff' })).toEqual({ usernet: 'validation.macUnicast' });
  });
});

describe('port and domain rules', () => {
  it('takes ports, ranges and domains; a route needs its WAN', () => {
    expect(errorsOf(qosPortRule, { name: 'p', dport: ['443', '1000-2000'] })).toEqual({});
    expect(errorsOf(qosPortRule, { name: 'p', dport: ['2000-1000'] })).toEqual({ dport: 'validation.portRange.format' });
    expect(errorsOf(qosPortRule, { name: 'p', dport: [] })).toEqual({});
    expect(errorsOf(qosPortRule, { name: 'p', dport: ['80'], userule: true })).toEqual({ interface: 'validation.multiWan.notWan' });
    expect(errorsOf(qosDomainRule, { name: 'd', dest_domain: ['example.com'] })).toEqual({});
    expect(errorsOf(qosDomainRule, { name: 'd', dest_domain: ['exa mple.com'] })).toEqual({ dest_domain: 'validation.domain' });
    expect(errorsOf(qosDomainRule, { name: 'd', dest_domain: ['example.com/#inet'] })).toEqual({ dest_domain: 'validation.domain' });
  });

  it('cross-record rules: routes and load balance name real WANs, once each; ISP groups once', () => {
    const rows = { wanNames: ['wan1', 'wan2'] };
    const port = parse(qosPortRule, { name: 'p', dport: ['80'], userule: true, interface: 'wan3' }) as never;
    expect(QOS_RULES.qosPortRule.write(port, rows)).toEqual({ interface: 'validation.multiWan.notWan' });
    const lb = parse(qosLoadBalance, { interface: 'wan1' }) as never;
    expect(QOS_RULES.qosLoadBalance.write(lb, rows)).toBeUndefined();
    expect(QOS_RULES.qosLoadBalance.write(lb, { ...rows, qosLoadBalance: [{ ...(lb as object), id: 'x' } as never] })).toEqual({
      interface: 'validation.multiWan.interfaceInUse',
    });
    const isp = parse(qosIsp, { group: 'telecom', name: 'T' }) as never;
    expect(QOS_RULES.qosIsp.write(isp, { ...rows, qosIsp: [{ ...(isp as object), id: 'y' } as never] })).toEqual({ group: 'validation.nameExists' });
  });
});

describe('operator definition files', () => {
  it('round-trip through download and upload; a bad line refuses the file', () => {
    const text = formatIspFile('telecom', ['1.0.0.0/8', '100.64.0.0/10']);
    expect(parseIspFile(text)).toEqual(['1.0.0.0/8', '100.64.0.0/10']);
    expect(parseIspFile('# comment\r\n10.0.0.0/8 # office\r\n\r\n')).toEqual(['10.0.0.0/8']);
    expect(parseIspFile('10.0.0.1/8')).toBeNull();
    expect(parseIspFile('10.0.0.0/8\nflush ruleset')).toBeNull();
    expect(errorsOf(qosIsp, { group: 'none', name: 'x' })).toEqual({ group: 'validation.option' });
  });
});
