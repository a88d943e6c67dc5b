import { openvpnServer } from '@portico/schema';
import type { ConfigDomain, ConfigSnapshot } from '../../config/config-types.js';
import type { ServiceReload, TargetActivation } from '../../config/domain-module.js';
import type { RenderedFile, RenderOutput } from '../../engine/engine-types.js';
import { serializeUci } from '../../engine/uci-format.js';
import { fw4Include, type NetworkPlan } from '../network/network-public.js';
import { OPENVPN_FILES, renderOpenvpnServer, safePath } from './vpn-server-openvpn.js';
import { openvpnSettingsOf, vpnServerContributor } from './vpn-server-ruleset.js';

/**
 * The OpenVPN server on the `openwrt` driver: the same server.conf as on linux (its PKI stays
 * in the daemon's state folder, which OpenWrt's openvpn, running as root, reads in place; the
 * management socket is there too, so revocation still cuts a session at once), started by
 * OpenWrt's own init script from one UCI section of the `openvpn` package that points at it
 * (`option config`). The package is optional: without it the files are kept and nothing runs.
 */
export const OPENWRT_OPENVPN_FILES = {
  uci: '/etc/config/openvpn',
} as const;

/** The instance's name: procd and syslog call it `openvpn(portico)`. */
const INSTANCE = 'portico';

/**
 * `restart`, not `reload`: a new server.conf must start a new server, and procd keeps an
 * instance whose command line did not change (the linux driver restarts it the same way).
 */
export const OPENWRT_OPENVPN_RELOAD: ServiceReload = { argv: ['/etc/init.d/openvpn', 'restart'], optional: true };

export function openvpnOpenwrtDomain(stateDir: string): ConfigDomain {
  return {
    name: 'openvpn-server',
    entities: [openvpnServer.name],
    render(snapshot) {
      const server = openvpnSettingsOf(snapshot);
      // Disabled: both files go; the restart that follows their removal stops the instance.
      if (!server.enabled) return [{ domain: 'openvpn-server', files: [] }];
      const uci = serializeUci([{ type: 'openvpn', name: INSTANCE, options: { enabled: '1', config: safePath(OPENVPN_FILES.conf) } }]);
      const files: RenderedFile[] = [
        { target: OPENVPN_FILES.conf, content: renderOpenvpnServer(server, stateDir), check: 'openvpn' },
        { target: OPENWRT_OPENVPN_FILES.uci, content: uci, check: 'uci', mode: 0o644 },
      ];
      return [{ domain: 'openvpn-server', files }];
    },
  };
}

export function vpnServerOpenwrtActivation(): TargetActivation {
  return {
    reloadFor: (target) => (target === OPENVPN_FILES.conf || target === OPENWRT_OPENVPN_FILES.uci ? OPENWRT_OPENVPN_RELOAD : undefined),
  };
}

export const OPENWRT_VPN_SERVER_INCLUDES = {
  input: '/usr/share/nftables.d/chain-pre/input/40-portico-vpn-server.nft',
  forward: '/usr/share/nftables.d/chain-pre/forward/40-portico-vpn-server.nft',
  srcnat: '/usr/share/nftables.d/chain-pre/srcnat/40-portico-vpn-server.nft',
} as const;

const TITLE = 'Portico VPN servers';

/**
 * The servers' share of fw4 on OpenWrt (the `openwrt` of their ruleset contributor): the linux
 * part's rules at the top of fw4's input, forward and srcnat chains, before its zones (the WAN
 * zone drops input, and the tunnel device belongs to no zone). None when no server runs.
 */
export function renderOpenwrtVpnServerRules(snapshot: ConfigSnapshot, plan: NetworkPlan): RenderOutput[] {
  const part = vpnServerContributor.part(snapshot, plan);
  if (!part) return [];
  const hooks = part.filter?.hooks ?? {};
  const files = [fw4Include(OPENWRT_VPN_SERVER_INCLUDES.input, TITLE, hooks.input_rules ?? []), fw4Include(OPENWRT_VPN_SERVER_INCLUDES.forward, TITLE, hooks.forward_rules ?? [])];
  const srcnat = part.nat?.hooks?.postrouting_rules ?? [];
  if (srcnat.length) files.push(fw4Include(OPENWRT_VPN_SERVER_INCLUDES.srcnat, TITLE, srcnat));
  return [{ domain: 'network', files }];
}
