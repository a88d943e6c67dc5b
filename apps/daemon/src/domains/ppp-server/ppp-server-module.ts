import { join } from 'node:path';
import { hotspotRadius, PPP_SERVER_KINDS, type L2tpServer, type PppoeServer, type PptpServer } from '@portico/schema';
import { contribute, defineDomain } from '../../config/domain-module.js';
import type { ConfigDomain } from '../../config/config-types.js';
import type { Settings } from '../../settings.js';
import { networkConfigOf, planNetwork, RULESET_PARTS } from '../network/network-public.js';
import {
  checkPppServerOptions,
  checkPptpdConf,
  checkXl2tpdConf,
  parsePppoeArgs,
  pppEntity,
  PPP_SERVER_FILES,
  PPP_SESSION_DIR,
  renderPppoeArgs,
  renderPptpdConf,
  renderXl2tpdConf,
} from './ppp-server-files.js';
import { pppServerLinuxActivation } from './ppp-server-activation.js';
import { DAE_SESSION_SOURCES, PORTAL_NOTICE_SOURCES } from '../hotspot/hotspot-public.js';
import { pppDaeSessions } from './ppp-server-dae.js';
import { pppExpiredNotices, pppServerContributor } from './ppp-server-ruleset.js';
import { registerPppServerRoutes } from './ppp-server-routes.js';
import { pppSecretsWriter, PPP_SECRETS_FORMAT, PPP_SERVER_DOMAIN } from './ppp-server-secrets-writer.js';
import { pppServerBindings } from './ppp-server-rules.js';
import { pppServerOpenwrtActivation, pppServerOpenwrtDomain, renderOpenwrtPppServerRules } from './ppp-server-openwrt.js';
import { checkRadiusClientConf, checkRadiusDictionary, checkRadiusServers, renderPppdFiles } from './ppp-server-radius.js';

/** Where the linux driver installs (the system root) and where the sim keeps its files. */
function installRoot(settings: Settings): string {
  return settings.driver === 'sim' ? join(settings.stateDir, 'rendered') : settings.systemRoot;
}

/**
 * The PPP servers as one config domain: each enabled server's pppd options and its daemon's
 * settings (pptpd.conf, xl2tpd.conf, pppoe-server's arguments), and the switch file that
 * stops the disabled ones. What a disabled server rendered is no longer rendered, so the
 * install manifest removes it.
 */
function pppServerDomain(settings: Settings): ConfigDomain {
  const root = installRoot(settings);
  return {
    name: PPP_SERVER_DOMAIN,
    entities: [...PPP_SERVER_KINDS.map((kind) => pppEntity(kind).name), 'networkInterface', 'vlan', hotspotRadius.name],
    render(snapshot) {
      const { servers, files } = renderPppdFiles(snapshot, PPP_SERVER_KINDS, root);
      const enabled: Record<string, boolean> = {};
      for (const { kind, server } of servers) {
        enabled[kind] = server.enabled;
        if (!server.enabled) continue;
        if (kind === 'pptp') files.push({ target: PPP_SERVER_FILES.pptpd, content: renderPptpdConf(server as PptpServer), check: 'pptpd-conf' });
        if (kind === 'l2tp') files.push({ target: PPP_SERVER_FILES.xl2tpd, content: renderXl2tpdConf(server as L2tpServer), check: 'xl2tpd-conf' });
        if (kind === 'pppoe') {
          const plan = planNetwork(networkConfigOf(snapshot));
          const devices = server.interfaces.flatMap((name) => plan.deviceOf.get(name) ?? []);
          if (devices.length) files.push({ target: PPP_SERVER_FILES.pppoe, content: renderPppoeArgs(server as PppoeServer, devices), check: 'pppoe-args' });
        }
      }
      files.push({ target: PPP_SERVER_FILES.control, content: `${JSON.stringify(enabled)}\n`, check: 'none' });
      // The folder the link hook records sessions in.
      return [{ domain: PPP_SERVER_DOMAIN, files, dirs: Object.values(enabled).some(Boolean) ? [`/${PPP_SESSION_DIR}`] : [] }];
    },
  };
}

export const pppServerModule = defineDomain({
  name: 'ppp-server',
  pages: ['pptpservice', 'l2tpservice', 'ppoeservice'],
  formats: [
    // pppd, pptpd and xl2tpd have no mode that reads a configuration without serving it: each
    // file is parsed back and every line held to its option's grammar (ppp-server-files.ts).
    { name: 'ppp-options', builtin: (content) => checkPppServerOptions(content)[0] ?? null },
    { name: 'pptpd-conf', builtin: (content) => checkPptpdConf(content)[0] ?? null },
    { name: 'xl2tpd-conf', builtin: (content) => checkXl2tpdConf(content)[0] ?? null },
    { name: 'pppoe-args', builtin: (content) => (parsePppoeArgs(content) ? null : 'not pppoe-server settings') },
    PPP_SECRETS_FORMAT,
    { name: 'ppp-radius-conf', builtin: (content) => checkRadiusClientConf(content)[0] ?? null },
    { name: 'ppp-radius-servers', builtin: (content) => checkRadiusServers(content)[0] ?? null },
    { name: 'ppp-radius-dictionary', builtin: (content) => checkRadiusDictionary(content)[0] ?? null },
  ],
  contributions: (settings) => [
    contribute(RULESET_PARTS, { ...pppServerContributor(settings.portalPort), openwrt: renderOpenwrtPppServerRules(settings.portalPort) }),
    contribute(PORTAL_NOTICE_SOURCES, pppExpiredNotices),
    // RADIUS's Disconnect-Requests end RADIUS-vouched sessions; on sim nothing dials.
    ...(settings.driver === 'sim' ? [] : [contribute(DAE_SESSION_SOURCES, pppDaeSessions({ root: installRoot(settings) }))]),
  ],
  // OpenWrt: each server under procd, through its package's init script or the feed's (ppp-server-openwrt.ts).
  configDomains: ({ settings }) => (settings.driver === 'openwrt' ? [pppServerOpenwrtDomain(settings.systemRoot)] : [pppServerDomain(settings)]),
  activation: { linux: pppServerLinuxActivation, openwrt: pppServerOpenwrtActivation },
  bindings: pppServerBindings,
  register(app, ctx) {
    const root = installRoot(ctx.settings);
    registerPppServerRoutes(app, ctx, { root });
    const writer = pppSecretsWriter(ctx, root, (error) => app.log.error({ err: error }, 'writing the PPP secrets failed'), {
      // Sessions are real on a device: on sim nothing dials, nothing is ended.
      sessions: ctx.settings.driver === 'sim' ? null : { root },
    });
    void writer.sync();
    return {
      async stop() {
        writer.stop();
        await writer.sync();
      },
    };
  },
});
