import { behaviourAudit, type BehaviourAudit } from '@portico/schema';
import type { AnyEntity } from '@portico/schema';
import { singletonRecord } from '../../config/config-domains.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { singletonDefaults } from '../../config/entity-routes.js';
import type { RulesetContributor } from '../network/network-public.js';
import { AUDIT_NFLOG_GROUP, AUDIT_SNAPLEN } from './audit-capture.js';

/** The saved audit settings, or the declared defaults before the first save. */
export function auditSettingsOf(snapshot: ConfigSnapshot): BehaviourAudit {
  const stored = singletonRecord(snapshot, behaviourAudit.name);
  return behaviourAudit.schema.parse({ ...singletonDefaults(behaviourAudit as unknown as AnyEntity), ...stored }) as BehaviourAudit;
}

/**
 * The audit's share of the one ruleset: a chain of its own on the forward hook, after the
 * filter (so only forwarded packets are seen; its own accept decides nothing), that logs to the
 * audit's NFLOG group the first payload packets (the 2nd to 6th of the original direction:
 * after the handshake's SYN, the request or ClientHello) of LAN→WAN TCP to ports 80 and 443,
 * cut to AUDIT_SNAPLEN bytes. Packet counts need connection accounting, which the audit's
 * sysctl file turns on.
 */
export const auditContributor: RulesetContributor = {
  entities: [behaviourAudit.name],
  part(snapshot) {
    const settings = auditSettingsOf(snapshot);
    if (!settings.enabled || !settings.urls) return null;
    return {
      name: 'behaviour audit',
      filter: {
        chains: [
          {
            name: 'audit_capture',
            base: 'type filter hook forward priority filter + 10; policy accept;',
            rules: [
              `iifname @lan_ifaces oifname @wan_ifaces meta nfproto ipv4 tcp dport { 80, 443 } tcp flags & (fin | syn | rst) == 0 ct original packets 2-6 log group ${AUDIT_NFLOG_GROUP} snaplen ${AUDIT_SNAPLEN}`,
            ],
          },
        ],
      },
    };
  },
};
