import {
  ENTITIES,
  type IspFileGroup,
  type QosBase,
  type QosDomainRule,
  type QosIpRule,
  type QosIsp,
  type QosLoadBalance,
  type QosMacRule,
  type QosPortRule,
} from '@portico/schema';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { collectionRows, singletonRecord } from '../../config/config-domains.js';
import { singletonDefaults } from '../../config/entity-routes.js';
import { isBuiltinIspGroup, readIspDefaults, type IspDefaultsReader } from './qos-isp-defaults.js';

/** Smart QoS entities (packages/schema/src/qos): rendered into the ruleset part and the tc file. */
export const QOS_ENTITY_NAMES = ['qosBase', 'qosIpRule', 'qosMacRule', 'qosPortRule', 'qosDomainRule', 'qosLoadBalance', 'qosIsp'] as const;

/** Smart QoS configuration as the renderers take it: stored rows, already validated. */
export interface QosConfig {
  base: QosBase;
  ipRules: readonly QosIpRule[];
  macRules: readonly QosMacRule[];
  portRules: readonly QosPortRule[];
  domainRules: readonly QosDomainRule[];
  loadBalance: readonly QosLoadBalance[];
  /** Uploaded definition files; a built-in group without one uses `ispDefaults`. */
  isps: readonly QosIsp[];
  /** Shipped networks of the built-in groups that load balancing uses and nobody replaced. */
  ispDefaults: Readonly<Partial<Record<IspFileGroup, readonly string[]>>>;
}

export function qosConfigOf(snapshot: ConfigSnapshot, readDefaults: IspDefaultsReader = readIspDefaults): QosConfig {
  const rows = (name: string) => collectionRows(snapshot, name) as never[];
  const baseEntity = ENTITIES.find((e) => e.name === 'qosBase')!;
  const base = (singletonRecord(snapshot, 'qosBase') ?? singletonDefaults(baseEntity)) as QosBase;
  const loadBalance: readonly QosLoadBalance[] = rows('qosLoadBalance');
  const isps: readonly QosIsp[] = rows('qosIsp');
  const ispDefaults: Partial<Record<IspFileGroup, readonly string[]>> = {};
  if (base.balance) {
    for (const { isp } of loadBalance) {
      if (isBuiltinIspGroup(isp) && !ispDefaults[isp] && !isps.some((row) => row.group === isp)) ispDefaults[isp] = readDefaults(isp);
    }
  }
  return {
    base,
    ipRules: rows('qosIpRule'),
    macRules: rows('qosMacRule'),
    portRules: rows('qosPortRule'),
    domainRules: rows('qosDomainRule'),
    loadBalance,
    isps,
    ispDefaults,
  };
}

/** The networks load balancing sends out by a group's WAN: the uploaded file, else the shipped one. */
export function ispNetworks(config: Pick<QosConfig, 'isps' | 'ispDefaults'>, group: string): readonly string[] {
  return config.isps.find((row) => row.group === group)?.networks ?? config.ispDefaults[group as IspFileGroup] ?? [];
}

/** Where the linux driver keeps the traffic-control script. */
export const QOS_FILES = {
  tc: '/etc/portico/qos.tc',
} as const;
