import { openvpnServer } from '@portico/schema';
import { contribute, defineDomain } from '../../config/domain-module.js';
import type { ConfigDomain } from '../../config/config-types.js';
import { IKE_USERS, RULESET_PARTS } from '../network/network-public.js';
import { OpenvpnClients, OPENVPN_MIGRATIONS } from './vpn-server-clients.js';
import { openvpnLinuxActivation } from './vpn-server-activation.js';
import { checkOpenvpnConf, OPENVPN_FILES, openvpnPkiDir, renderOpenvpnServer } from './vpn-server-openvpn.js';
import { OpenvpnPki } from './vpn-server-pki.js';
import { vpnServerBackup } from './vpn-server-backup.js';
import { openvpnSettingsOf, vpnServerContributor } from './vpn-server-ruleset.js';
import { registerOpenvpnRoutes } from './vpn-server-routes.js';
import { runCommand, type CommandRunner } from '../../engine/command-runner.js';
import type { DriverEnv, TargetActivation } from '../../config/domain-module.js';
import { checkSwanctlServer } from './vpn-server-ipsec.js';
import { ipsecBindings, ipsecDomain, ipsecIkeUser } from './vpn-server-ipsec-domain.js';
import { ipsecLinuxActivation } from './vpn-server-ipsec-runtime.js';
import { registerIpsecRoutes } from './vpn-server-ipsec-routes.js';
import { openvpnOpenwrtDomain, renderOpenwrtVpnServerRules, vpnServerOpenwrtActivation } from './vpn-server-openwrt.js';
import { ipsecOpenwrtActivation, ipsecOpenwrtDomain, OPENWRT_CHARON_FORMAT } from './vpn-server-ipsec-openwrt.js';

/**
 * The VPN servers (spec §3 VPN service): the OpenVPN server with its own PKI. Its settings are
 * the `openvpnServer` entity; its certificates the module's table and key folder.
 */
function openvpnDomain(stateDir: string): ConfigDomain {
  return {
    name: 'openvpn-server',
    entities: [openvpnServer.name],
    render(snapshot) {
      const server = openvpnSettingsOf(snapshot);
      const files = [];
      if (server.enabled) files.push({ target: OPENVPN_FILES.conf, content: renderOpenvpnServer(server, stateDir), check: 'openvpn' });
      files.push({ target: OPENVPN_FILES.control, content: `${JSON.stringify({ enabled: server.enabled })}\n`, check: 'none' });
      return [{ domain: 'openvpn-server', files }];
    },
  };
}

/** Both servers' activations on the linux driver as one (their handlers never share a key). */
function linuxActivation(env: DriverEnv): TargetActivation {
  const openvpn = openvpnLinuxActivation(env);
  const ipsec = ipsecLinuxActivation(env);
  return {
    activate: { ...openvpn.activate, ...ipsec.activate },
    afterPass: (live) => ipsec.afterPass!(live),
    // charon is the network's: it stops it.
    stop: async () => openvpn.stop?.(),
  };
}

/** Both servers on OpenWrt: OpenVPN's init script, and the IPsec server's files on the system charon. */
function openwrtActivation(env: DriverEnv): TargetActivation {
  const openvpn = vpnServerOpenwrtActivation();
  const ipsec = ipsecOpenwrtActivation(env);
  return {
    activate: { ...ipsec.activate },
    reloadFor: (target) => openvpn.reloadFor!(target) ?? ipsec.reloadFor!(target),
  };
}

export interface VpnServerDeps {
  /** swanctl's commands for the IPsec status routes (a test's fake). */
  run?: CommandRunner;
}

export const vpnServerModule = defineDomain({
  name: 'vpn-server',
  pages: ['openvpnservice', 'caconfiguration', 'clientrsa', 'ipsecservice'],
  formats: [
    {
      name: 'openvpn',
      // OpenVPN parses the whole file, options and arguments, before it generates a key: the
      // one mode that reads a server configuration without opening sockets or devices.
      command: (path) => ['openvpn', '--config', path, '--verb', '0', '--genkey', 'secret', '/dev/null'],
      builtin: (content) => checkOpenvpnConf(content)[0] ?? null,
    },
    // strongSwan has no offline parser of its settings files: ours parses them back and holds
    // every setting to the grammar of its key (vpn-server-ipsec.ts); `swanctl --load-all` judges last.
    { name: 'ipsec-swanctl', builtin: (content) => checkSwanctlServer(content)[0] ?? null },
    // OpenWrt: the aggressive-mode consent as a strongswan.d fragment (vpn-server-ipsec-openwrt.ts).
    OPENWRT_CHARON_FORMAT,
  ],
  contributions: () => [contribute(RULESET_PARTS, { ...vpnServerContributor, openwrt: renderOpenwrtVpnServerRules }), contribute(IKE_USERS, ipsecIkeUser)],
  // OpenWrt: OpenVPN under its own init script (vpn-server-openwrt.ts), the IPsec server as
  // swanctl fragments of the system charon (vpn-server-ipsec-openwrt.ts).
  configDomains: ({ settings }) => (settings.driver === 'openwrt' ? [openvpnOpenwrtDomain(settings.stateDir), ipsecOpenwrtDomain()] : [openvpnDomain(settings.stateDir), ipsecDomain()]),
  activation: { linux: linuxActivation, openwrt: openwrtActivation },
  bindings: (ctx) => ipsecBindings(ctx),
  migrations: OPENVPN_MIGRATIONS,
  backup: vpnServerBackup,
  async register(app, ctx, deps: VpnServerDeps | undefined) {
    registerIpsecRoutes(app, ctx, deps?.run ?? runCommand);
    const pki = new OpenvpnPki(openvpnPkiDir(ctx.settings.stateDir), ctx.now);
    const clients = new OpenvpnClients(ctx.db, pki, ctx.now);
    await pki.ensure(clients.revokedEntries());
    registerOpenvpnRoutes(app, ctx, pki, clients);
  },
});
