import {
  ENTITIES,
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
import { singletonDefaults } from '../entity/entity-routes.js';

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
  isps: readonly QosIsp[];
}

export function qosConfigOf(snapshot: ConfigSnapshot): QosConfig {
  const rows = (name: string) => collectionRows(snapshot, name) as never[];
  const baseEntity = ENTITIES.find((e) => e.name === 'qosBase')!;
  return {
    base: (singletonRecord(snapshot, 'qosBase') ?? singletonDefaults(baseEntity)) as QosBase,
    ipRules: rows('qosIpRule'),
    macRules: rows('qosMacRule'),
    portRules: rows('qosPortRule'),
    domainRules: rows('qosDomainRule'),
    loadBalance: rows('qosLoadBalance'),
    isps: rows('qosIsp'),
  };
}

/** Where the linux driver keeps the traffic-control script. */
export const QOS_FILES = {
  tc: '/etc/portico/qos.tc',
} as const;
