import { beforeAll, describe, expect, test } from 'vitest';
import { ENTITIES, type SystemRoute } from '@portico/schema';
import { LANGUAGES } from '@portico/i18n/load';
import { i18n, valueLabel } from '../src/i18n/console-i18n.js';
import { formatCell, type CellContext } from '../src/pages/entity/entity-columns.js';
import { routeCells } from '../src/pages/network-status/system-route-page.js';

/** Route types and routing protocols `ip route` names (iproute2's rt_names and rtnl_rtntype). */
const ROUTE_TYPES = ['unicast', 'local', 'broadcast', 'multicast', 'anycast', 'blackhole', 'unreachable', 'prohibit', 'throw', 'nat'];
const ROUTE_PROTOCOLS = ['kernel', 'boot', 'static', 'dhcp', 'ra', 'redirect', 'zebra', 'bird', 'bgp', 'ospf', 'rip', 'isis', 'babel', 'keepalived', 'unspec'];

const route: SystemRoute = {
  family: '4',
  table: 'main',
  wan: '',
  type: 'unicast',
  destination: 'default',
  gateway: '203.0.113.1',
  interface: 'eth0',
  protocol: 'kernel',
  scope: 'global',
  metric: 0,
  source: '',
  nexthops: [],
};

beforeAll(async () => {
  await i18n.loadLanguages([...LANGUAGES]);
});

describe('kernel names on the system route page', () => {
  test('type, protocol, table and the default destination in each language', () => {
    expect(routeCells(route, i18n.getFixedT('en-US'))).toEqual(['Main', 'Default route', '203.0.113.1', 'eth0', 'Kernel', '0', '', 'Unicast']);
    expect(routeCells(route, i18n.getFixedT('zh-CN'))).toEqual(['主表', '默认路由', '203.0.113.1', 'eth0', '内核', '0', '', '单播']);
    expect(routeCells({ ...route, type: 'blackhole', protocol: 'static' }, i18n.getFixedT('zh-TW'))).toEqual([
      '主表',
      '預設路由',
      '203.0.113.1',
      'eth0',
      '靜態',
      '0',
      '',
      '黑洞（丟棄）',
    ]);
  });

  test('every route type and protocol the kernel names has a label in every language', () => {
    for (const lang of LANGUAGES) {
      const t = i18n.getFixedT(lang);
      for (const type of ROUTE_TYPES) expect(t(`netStatus.route.types.${type}`), `${lang} ${type}`).not.toMatch(/^netStatus\./);
      for (const protocol of ROUTE_PROTOCOLS) expect(i18n.exists(`netStatus.route.protocols.${protocol}`, { lng: lang }), `${lang} ${protocol}`).toBe(true);
      // Chinese never shows the kernel's English word for these.
      if (lang !== 'en-US') for (const type of ROUTE_TYPES) expect(valueLabel(t, 'netStatus.route.types', type)).not.toBe(type);
    }
  });

  test('a value this build has no label for is shown as the device gave it', () => {
    const t = i18n.getFixedT('zh-CN');
    expect(valueLabel(t, 'netStatus.route.protocols', '186')).toBe('186');
    expect(valueLabel(t, 'netStatus.route.tables', '101')).toBe('101');
    expect(valueLabel(t, 'netStatus.route.types', 'a:b.c')).toBe('a:b.c');
    expect(valueLabel(t, 'networkInterface.option.role', 'wan')).toBe('外网 (WAN)');
  });
});

type ZodLike = { _zod?: { def?: { type?: string; innerType?: ZodLike; in?: ZodLike; element?: ZodLike; entries?: Record<string, string | number> } } };

/** The values of an enum field (or of the elements of an array of one), else null. */
function enumValues(field: ZodLike | undefined): Array<string | number> | null {
  let def = field?._zod?.def;
  while (def && (def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'pipe')) def = (def.innerType ?? def.in)?._zod?.def;
  if (def?.type === 'array') def = def.element?._zod?.def;
  return def?.type === 'enum' && def.entries ? Object.values(def.entries) : null;
}

describe('enum values in entity lists', () => {
  test('every list column over an enum shows a label for each value in every language', () => {
    const checked: string[] = [];
    for (const lang of LANGUAGES) {
      const t = i18n.getFixedT(lang);
      const ctx: CellContext = { t: (key, options) => t(key, options ?? {}), exists: (key) => i18n.exists(key, { lng: lang }) };
      for (const entity of ENTITIES) {
        for (const column of entity.list?.columns ?? []) {
          const values = enumValues((entity.schema.shape as Record<string, ZodLike>)[column.field]);
          if (!values) continue;
          checked.push(`${entity.name}.${column.field}`);
          for (const value of values) {
            const key = `${entity.name}.option.${column.field}.${value}`;
            expect(i18n.exists(key, { lng: lang }), `${lang}: ${key}`).toBe(true);
            const cell = formatCell(entity, column, column.format === 'tags' ? [value] : value, ctx);
            const shown = cell.kind === 'tags' ? cell.items[0] : 'text' in cell ? cell.text : '';
            expect(shown, `${lang}: ${key}`).toBe(t(key));
          }
        }
      }
    }
    // The weekdays of the QoS rules are an array of an enum, shown as tags.
    expect(checked).toContain('qosIpRule.weekdays');
  });
});
