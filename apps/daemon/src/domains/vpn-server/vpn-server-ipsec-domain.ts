import { entityByName, ipsecPeer, ipsecPeerConflicts, L2TP_PSK_SOURCE, MSG, type IpsecPeer } from '@portico/schema';
import { singletonRecord } from '../../config/config-domains.js';
import type { ConfigDomain, ConfigSnapshot } from '../../config/config-types.js';
import type { EntityBinding } from '../../config/entity-routes.js';
import type { AppContext } from '../../app-context.js';
import { failure } from '../../plugins/api-envelope.js';
import type { IkeUser } from '../network/network-public.js';
import { IPSEC_FILES, renderSwanctlSecrets, renderSwanctlServer, servedPeers, type L2tpIpsecPart } from './vpn-server-ipsec.js';
import { ipsecPeersOf } from './vpn-server-ruleset.js';

/**
 * The L2TP/IPsec server's pre-shared key, once a module declares that entity (spec §5: an
 * IPsec peer's key must not be it). Until then there is none to conflict with.
 */
export function l2tpPsk(snapshot: ConfigSnapshot): string | undefined {
  if (!entityByName(L2TP_PSK_SOURCE.entity)) return undefined;
  const record = singletonRecord(snapshot, L2TP_PSK_SOURCE.entity);
  // Only while the L2TP server is on and asks for IPsec.
  if (record?.enabled !== true || record?.ipsec !== true) return undefined;
  const value = record?.[L2TP_PSK_SOURCE.field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What the server gives charon in this configuration: its served peers and L2TP/IPsec's share. */
export function ipsecShare(snapshot: ConfigSnapshot): { served: IpsecPeer[]; l2tp: L2tpIpsecPart | undefined } {
  const psk = l2tpPsk(snapshot);
  return { served: servedPeers(ipsecPeersOf(snapshot)), l2tp: psk ? { psk } : undefined };
}

/** Whether the server has anything for charon: a served peer or L2TP/IPsec. */
export function ipsecServerActive(snapshot: ConfigSnapshot): boolean {
  const { served, l2tp } = ipsecShare(snapshot);
  return served.length > 0 || l2tp !== undefined;
}

/**
 * The IPsec server as a config domain: its connections and keys while it is active. charon is
 * the network's one IKE daemon, which includes this connections file (ipsecIkeUser).
 */
export function ipsecDomain(): ConfigDomain {
  return {
    name: 'ipsec-server',
    entities: [ipsecPeer.name, L2TP_PSK_SOURCE.entity],
    render(snapshot) {
      // L2TP/IPsec's share rides on the same charon (its key for anonymous clients).
      const { served, l2tp } = ipsecShare(snapshot);
      const files = [];
      if (served.length > 0 || l2tp !== undefined) {
        files.push({ target: IPSEC_FILES.secrets, content: renderSwanctlSecrets(served, l2tp), mode: 0o600, check: 'ipsec-swanctl' });
        files.push({ target: IPSEC_FILES.connections, content: renderSwanctlServer(served, l2tp), check: 'ipsec-swanctl' });
      }
      return [{ domain: 'ipsec-server', files }];
    },
  };
}

/** The server's share of the one IKE daemon (the network's IKE_USERS). */
export const ipsecIkeUser: IkeUser = {
  entities: [ipsecPeer.name, L2TP_PSK_SOURCE.entity],
  connections: IPSEC_FILES.connections,
  active: ipsecServerActive,
  aggressivePsk: (snapshot) => ipsecShare(snapshot).served.some((peer) => peer.ike === 'ikev1' && peer.ipsec_mode === 'aggressive'),
};

/** The cross-row rules of the peers (unique name, one identity per address, L2TP's key). */
export function ipsecBindings(ctx: AppContext): Record<string, EntityBinding> {
  return {
    [ipsecPeer.name]: {
      rules: {
        checkWrite: ({ record, previous }) => {
          const candidate = { ...(previous ?? {}), ...record } as Partial<IpsecPeer>;
          const snapshot = ctx.config.journal.capture();
          const others = ipsecPeersOf(snapshot).filter((row) => row.id !== candidate.id);
          const errors = ipsecPeerConflicts(candidate, others, l2tpPsk(snapshot));
          return Object.keys(errors).length ? failure(MSG.invalid, errors) : undefined;
        },
      },
    },
  };
}
