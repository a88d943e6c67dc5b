import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { integerInRange } from '../common/field-base.js';
import { cidrField } from '../common/ip-fields.js';
import { nameField } from '../common/text-fields.js';
import { interfaceNameField, WAN_REF } from '../network/network-fields.js';
import { ISP_BUILTIN_GROUPS, ISP_FILE_GROUPS, ISP_GROUPS, SPEED_MAX_KBIT } from './qos-fields.js';

/**
 * Load balance (spec §3 Flow "load balance"): one entry per WAN with its line speeds, which
 * the shaper needs (a queue only forms where the gateway is the bottleneck), its weight among
 * the WANs and the ISP whose networks it reaches best.
 */
export const LINE_SPEED_DEFAULT_KBIT = 100_000;

export const qosLoadBalance = defineEntity({
  name: 'qosLoadBalance',
  path: 'flow/loadbalance',
  module: 'smartqos',
  route: '/smartqos/loadbalance',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    interface: interfaceNameField(),
    weight: integerInRange(1, 100, 'validation.multiWan.weight').default(1),
    upbandwidth: integerInRange(1, SPEED_MAX_KBIT, 'validation.speed.range').default(LINE_SPEED_DEFAULT_KBIT),
    downbandwidth: integerInRange(1, SPEED_MAX_KBIT, 'validation.speed.range').default(LINE_SPEED_DEFAULT_KBIT),
    isp: z.enum(ISP_GROUPS, { error: 'validation.option' }).default('default'),
  }),
  list: {
    columns: [
      { field: 'interface', sortable: true },
      { field: 'weight', sortable: true },
      { field: 'upbandwidth' },
      { field: 'downbandwidth' },
      { field: 'isp', format: 'option' },
    ],
    defaultSort: 'interface',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'interface', addOnly: true, ref: WAN_REF },
          { name: 'weight' },
          { name: 'upbandwidth' },
          { name: 'downbandwidth' },
          { name: 'isp', widget: 'select', options: ISP_GROUPS },
        ],
      },
    ],
  },
  maxRows: 8,
});
export type QosLoadBalance = z.infer<typeof qosLoadBalance.schema>;

/**
 * The ISP list (spec §3 "ISP list", §2 "operator (ISP) definition file (download, upload, use
 * default)"): the networks of each ISP group. A group without an entry uses the definition
 * file the device ships with.
 */
export const ISP_NETWORKS_MAX = 20_000;

export const qosIsp = defineEntity({
  name: 'qosIsp',
  path: 'flow/ispinfo',
  module: 'smartqos',
  route: '/smartqos/isp',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    group: z.enum(ISP_FILE_GROUPS, { error: 'validation.option' }).default('custom1'),
    name: nameField(),
    networks: z.array(cidrField({ network: true })).max(ISP_NETWORKS_MAX, { error: 'validation.tooBig' }).default([]),
  }),
  list: {
    columns: [
      { field: 'group', format: 'option', sortable: true },
      { field: 'name', sortable: true },
      { field: 'networks', format: 'tags' },
    ],
    defaultSort: 'group',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'group', widget: 'select', options: ISP_FILE_GROUPS, addOnly: true },
          { name: 'name' },
          { name: 'networks', widget: 'tags' },
        ],
      },
    ],
  },
  maxRows: ISP_FILE_GROUPS.length,
});
export type QosIsp = z.infer<typeof qosIsp.schema>;

/** Where a group's networks come from: an uploaded file, the one the device ships, or none. */
export const ISP_SOURCES = ['uploaded', 'builtin', 'none'] as const;

/** GET `<qosIsp.path>/file?group=`: the definition file a group uses now. */
export const ispFileSchema = z.object({
  group: z.enum(ISP_FILE_GROUPS),
  source: z.enum(ISP_SOURCES),
  networks: z.array(z.string()),
});
export type IspFile = z.infer<typeof ispFileSchema>;

/** GET `<qosIsp.path>/defaults`: how many networks each shipped file holds. */
export const ispDefaultsSchema = z.object({
  groups: z.array(z.object({ group: z.enum(ISP_BUILTIN_GROUPS), count: z.number().int().nonnegative() })),
});
export type IspDefaults = z.infer<typeof ispDefaultsSchema>;

/** Parses an operator definition file: one network per line, `#` comments; null on a bad line. */
export function parseIspFile(text: string): string[] | null {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const parsed = cidrField({ network: true }).safeParse(line);
    if (!parsed.success) return null;
    out.push(parsed.data);
  }
  return out.length <= ISP_NETWORKS_MAX ? out : null;
}

/** The definition file of a group's networks, as downloaded. */
export function formatIspFile(group: string, networks: readonly string[]): string {
  return [`# ISP ${group}: one network per line`, ...networks].join('\n') + '\n';
}
