import { openvpnServer } from '@portico/schema';
import { contribute, defineDomain } from '../../config/domain-module.js';
import type { ConfigDomain } from '../../config/config-types.js';
import { RULESET_PARTS } from '../network/network-public.js';
import { OpenvpnClients, OPENVPN_MIGRATIONS } from './vpn-server-clients.js';
import { openvpnLinuxActivation } from './vpn-server-activation.js';
import { checkOpenvpnConf, OPENVPN_FILES, openvpnPkiDir, renderOpenvpnServer } from './vpn-server-openvpn.js';
import { OpenvpnPki } from './vpn-server-pki.js';
import { vpnServerBackup } from './vpn-server-backup.js';
import { openvpnSettingsOf, vpnServerContributor } from './vpn-server-ruleset.js';
import { registerOpenvpnRoutes } from './vpn-server-routes.js';

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

export const vpnServerModule = defineDomain({
  name: 'vpn-server',
  pages: ['openvpnservice', 'caconfiguration', 'clientrsa'],
  formats: [
    {
      name: 'openvpn',
      // OpenVPN parses the whole file, options and arguments, before it generates a key: the
      // one mode that reads a server configuration without opening sockets or devices.
      command: (path) => ['openvpn', '--config', path, '--verb', '0', '--genkey', 'secret', '/dev/null'],
      builtin: (content) => checkOpenvpnConf(content)[0] ?? null,
    },
  ],
  contributions: () => [contribute(RULESET_PARTS, vpnServerContributor)],
  // OpenWrt runs OpenVPN from UCI sections under its own init script, which this domain does not
  // render yet: there the server is not configured at all rather than left half-applied.
  configDomains: ({ settings }) => (settings.driver === 'openwrt' ? [] : [openvpnDomain(settings.stateDir)]),
  activation: { linux: openvpnLinuxActivation },
  migrations: OPENVPN_MIGRATIONS,
  backup: vpnServerBackup,
  async register(app, ctx) {
    const pki = new OpenvpnPki(openvpnPkiDir(ctx.settings.stateDir), ctx.now);
    const clients = new OpenvpnClients(ctx.db, pki, ctx.now);
    await pki.ensure(clients.revokedEntries());
    registerOpenvpnRoutes(app, ctx, pki, clients);
  },
});
