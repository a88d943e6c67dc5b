import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ipsecPeer, L2TP_PSK_SOURCE } from '@portico/schema';
import type { ConfigDomain } from '../../config/config-types.js';
import type { DriverEnv, ServiceReload, TargetActivation } from '../../config/domain-module.js';
import type { RenderedFile } from '../../engine/engine-types.js';
import { parseStrongswanSettings } from '../network/network-public.js';
import { renderSwanctlSecrets, renderSwanctlServer } from './vpn-server-ipsec.js';
import { ipsecIkeUser, ipsecShare } from './vpn-server-ipsec-domain.js';

/**
 * The IPsec server on the `openwrt` driver. OpenWrt runs one charon, from the swanctl
 * package's init script, and its `swanctl --load-all` reads /etc/swanctl/swanctl.conf, which
 * includes conf.d/*.conf: the server's connections are a fragment there beside the network
 * domain's IPsec clients' (network-openwrt-vpn.ts; theirs are named `vpnc-<name>`, a peer's
 * name has no hyphen), so one load takes both and neither unloads the other. The same renderer
 * as on linux, the keys in a 0600 file outside conf.d included by absolute path.
 */
export const OPENWRT_IPSEC_FILES = {
  connections: '/etc/swanctl/conf.d/portico-server.conf',
  /** Outside conf.d, so `--load-all` does not read it a second time on its own. */
  secrets: '/etc/swanctl/portico-server-secrets.conf',
  /** A strongswan.conf fragment (OpenWrt's strongswan.conf includes strongswan.d/*.conf). */
  charon: '/etc/strongswan.d/portico-server.conf',
} as const;

const AGGRESSIVE_KEY = 'i_dont_care_about_security_and_use_aggressive_mode_psk';

/** The swanctl init script's reload: `swanctl --load-all --noprompt` (it starts charon when it is not running). */
export const OPENWRT_SWANCTL_RELOAD: ServiceReload = { argv: ['/etc/init.d/swanctl', 'reload'], optional: true };
/** From the strongswan-swanctl package. */
export const OPENWRT_SWANCTL = '/usr/sbin/swanctl';

/**
 * charon's one option the server may need: IKEv1 aggressive mode with a pre-shared key is
 * refused unless strongSwan is told otherwise. `no` unless a served peer needs it, so turning
 * the last such peer off takes the consent back.
 */
export function renderOpenwrtCharonFragment(aggressive: boolean): string {
  const value = aggressive ? 'yes' : 'no';
  return ['# Portico IPsec server. Generated; changes are overwritten.', 'charon {', `\t${AGGRESSIVE_KEY} = ${value}`, '}', ''].join('\n');
}

/** The fragment's checker: strongSwan's settings grammar, one section `charon`, its one setting. */
export function checkOpenwrtCharonFragment(content: string): string[] {
  const problems: string[] = [];
  const path: string[] = [];
  for (const line of parseStrongswanSettings(content, problems)) {
    if (line.kind === 'open') {
      if (path.length || line.name !== 'charon') problems.push(`${line.at}: section ${line.name} where only charon belongs`);
      path.push(line.name!);
    } else if (line.kind === 'close') path.pop();
    else if (line.kind === 'include') problems.push(`${line.at}: include in charon's fragment`);
    else if (path.join('.') !== 'charon' || line.key !== AGGRESSIVE_KEY) problems.push(`${line.at}: unknown setting ${line.key}`);
    else if (line.value !== 'yes' && line.value !== 'no') problems.push(`${line.at}: value of ${line.key} not yes or no`);
  }
  return problems;
}

export const OPENWRT_CHARON_FORMAT = { name: 'ipsec-charon-fragment', builtin: (content: string) => checkOpenwrtCharonFragment(content)[0] ?? null };

export function ipsecOpenwrtDomain(): ConfigDomain {
  return {
    name: 'ipsec-server',
    entities: [ipsecPeer.name, L2TP_PSK_SOURCE.entity],
    render(snapshot) {
      const { served, l2tp } = ipsecShare(snapshot);
      // Nothing served: no file, and the reload that follows their removal unloads the connections.
      if (!served.length && !l2tp) return [{ domain: 'ipsec-server', files: [] }];
      const aggressive = ipsecIkeUser.aggressivePsk?.(snapshot) === true;
      const files: RenderedFile[] = [
        { target: OPENWRT_IPSEC_FILES.charon, content: renderOpenwrtCharonFragment(aggressive), check: OPENWRT_CHARON_FORMAT.name, mode: 0o644 },
        { target: OPENWRT_IPSEC_FILES.secrets, content: renderSwanctlSecrets(served, l2tp), check: 'ipsec-swanctl', mode: 0o600 },
        { target: OPENWRT_IPSEC_FILES.connections, content: renderSwanctlServer(served, l2tp, OPENWRT_IPSEC_FILES.secrets), check: 'ipsec-swanctl', mode: 0o644 },
      ];
      return [{ domain: 'ipsec-server', files }];
    },
  };
}

/**
 * How the server's files go live on OpenWrt. The connections and keys: the swanctl init
 * script's reload (one `--load-all` per apply, shared with the clients' files). charon's
 * fragment: `swanctl --reload-settings`, which makes the running charon read strongswan.conf
 * again (charon looks the aggressive-mode consent up at each exchange, so no restart, and no
 * tunnel of the clients is cut); a charon that is not running reads it when it starts.
 */
export function ipsecOpenwrtActivation(env: Pick<DriverEnv, 'root' | 'run'>): TargetActivation {
  return {
    activate: {
      [OPENWRT_IPSEC_FILES.charon]: async () => {
        if (!existsSync(join(env.root, OPENWRT_SWANCTL))) return;
        const reloaded = await env.run([OPENWRT_SWANCTL, '--reload-settings']);
        if (reloaded.exitCode === 0) return;
        // Not running (no vici socket): it reads the fragment at its start, which this apply's reload brings.
        if ((await env.run([OPENWRT_SWANCTL, '--stats'])).exitCode !== 0) return;
        throw new Error(`swanctl --reload-settings failed: ${(reloaded.stderr || reloaded.stdout).slice(0, 300)}`);
      },
    },
    reloadFor: (target) => (target === OPENWRT_IPSEC_FILES.connections || target === OPENWRT_IPSEC_FILES.secrets ? OPENWRT_SWANCTL_RELOAD : undefined),
  };
}
