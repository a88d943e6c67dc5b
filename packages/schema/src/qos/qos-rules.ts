import type { QosDomainRule, QosPortRule } from './qos-class-rule.js';
import type { QosIsp, QosLoadBalance } from './qos-load-balance.js';

/**
 * Smart QoS rules that need other stored rows. Pure functions of the candidate and the rows,
 * answering field errors, like the Network section's rules.
 */
export interface QosRows {
  wanNames: readonly string[];
  qosLoadBalance?: readonly QosLoadBalance[];
  qosIsp?: readonly QosIsp[];
}

type Candidate<T extends { id: string }> = Omit<T, 'id'> & { id?: string };

function others<T extends { id: string }>(rows: readonly T[] | undefined, candidate: { id?: string }): T[] {
  return (rows ?? []).filter((row) => candidate.id === undefined || row.id !== candidate.id);
}

export const QOS_RULES = {
  qosLoadBalance: {
    write(candidate: Candidate<QosLoadBalance>, rows: QosRows): Record<string, string> | undefined {
      if (!rows.wanNames.includes(candidate.interface)) return { interface: 'validation.multiWan.notWan' };
      if (others(rows.qosLoadBalance, candidate).some((row) => row.interface === candidate.interface)) {
        return { interface: 'validation.multiWan.interfaceInUse' };
      }
      return undefined;
    },
  },
  qosIsp: {
    write(candidate: Candidate<QosIsp>, rows: QosRows): Record<string, string> | undefined {
      if (others(rows.qosIsp, candidate).some((row) => row.group === candidate.group)) return { group: 'validation.nameExists' };
      return undefined;
    },
  },
  qosPortRule: {
    write(candidate: Candidate<QosPortRule>, rows: QosRows): Record<string, string> | undefined {
      if (candidate.userule && !rows.wanNames.includes(candidate.interface)) return { interface: 'validation.multiWan.notWan' };
      return undefined;
    },
  },
  qosDomainRule: {
    write(candidate: Candidate<QosDomainRule>, rows: QosRows): Record<string, string> | undefined {
      if (candidate.userule && !rows.wanNames.includes(candidate.interface)) return { interface: 'validation.multiWan.notWan' };
      return undefined;
    },
  },
} as const;
