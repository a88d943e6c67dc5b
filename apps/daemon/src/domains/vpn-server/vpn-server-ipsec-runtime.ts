import { IPSEC_LOG_LINES_MAX } from '@portico/schema';
import type { DriverEnv, TargetActivation } from '../../config/domain-module.js';
import { ikeDaemonOf, NETWORK_FILES, readIpsecLogFile } from '../network/network-public.js';
import { join } from 'node:path';
import { IPSEC_FILES } from './vpn-server-ipsec.js';

export interface IpsecLogText {
  present: boolean;
  lines: string[];
  truncated: boolean;
}

/**
 * The newest lines of the IPsec log (oldest first), at most `max`: the one charon's, which the
 * server shares with the network's IPsec clients. Each line starts with the daemon's ISO stamp.
 */
export async function readIpsecServerLog(root: string, max = IPSEC_LOG_LINES_MAX): Promise<IpsecLogText> {
  const { present, lines, truncated } = await readIpsecLogFile(join(root, NETWORK_FILES.ipsecLog), max);
  return { present, lines, truncated };
}

/**
 * The server on the linux driver: its files only note, on the network's one IKE daemon, that
 * they changed; after the pass one flush makes every IKE user's changes live in one
 * `swanctl --load-all` (a no-op when the network's afterPass flushed it already). The daemon
 * starts and stops charon as its users come and go (the IKE domain's control file).
 */
export function ipsecLinuxActivation(env: DriverEnv): TargetActivation {
  const ike = ikeDaemonOf(env);
  const noteLoad = async () => ike.note({ load: true });
  return {
    activate: { [IPSEC_FILES.connections]: noteLoad, [IPSEC_FILES.secrets]: noteLoad },
    afterPass: () => ike.flush(),
  };
}
