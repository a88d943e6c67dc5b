import { join } from 'node:path';
import { hotspotRadius, PPP_SERVER_KINDS, type L2tpServer, type PppoeServer, type PptpServer } from '@portico/schema';
import { contribute, defineDomain } from '../../config/domain-module.js';
import type { ConfigDomain } from '../../config/config-types.js';
import type { RenderedFile } from '../../engine/engine-types.js';
import type { Settings } from '../../settings.js';
import { networkConfigOf, planNetwork, RULESET_PARTS } from '../network/network-public.js';
import {
  checkPppServerOptions,
  checkPptpdConf,
  checkXl2tpdConf,
  parsePppoeArgs,
  pppEntity,
  pppSettingsOf,
  PPP_SERVER_FILES,
  PPP_SERVER_HOOK,
  PPP_SESSION_DIR,
  renderPppoeArgs,
  renderPppServerOptions,
  renderPptpdConf,
  renderXl2tpdConf,
} from './ppp-server-files.js';
import { pppServerLinuxActivation } from './ppp-server-activation.js';
import { PORTAL_NOTICE_SOURCES } from '../hotspot/hotspot-public.js';
import { pppExpiredNotices, pppServerContributor } from './ppp-server-ruleset.js';
import { registerPppServerRoutes } from './ppp-server-routes.js';
import { pppSecretsWriter, PPP_SECRETS_FORMAT, PPP_SERVER_DOMAIN } from './ppp-server-secrets-writer.js';
import { pppServerBindings } from './ppp-server-rules.js';
import { checkRadiusClientConf, checkRadiusDictionary, checkRadiusServers, hotspotRadiusOf, PPP_RADIUS_FILES, renderPppRadiusFiles } from './ppp-server-radius.js';

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
      const files: RenderedFile[] = [];
      const servers = PPP_SERVER_KINDS.map((kind) => ({ kind, server: pppSettingsOf(snapshot, kind) }));
      // radiusclient's files, once, when an enabled server takes its accounts from RADIUS.
      const radius = servers.some(({ server }) => server.enabled && server.authway === 'radius');
      if (radius) files.push(...renderPppRadiusFiles(hotspotRadiusOf(snapshot), join(root, PPP_SESSION_DIR)));
      const env = { root, hook: PPP_SERVER_HOOK, radiusConfig: radius ? PPP_RADIUS_FILES.config : undefined };
      const enabled: Record<string, boolean> = {};
      for (const { kind, server } of servers) {
        enabled[kind] = server.enabled;
        if (!server.enabled) continue;
        files.push({ target: PPP_SERVER_FILES.options(kind), content: renderPppServerOptions(kind, server, env), check: 'ppp-options' });
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
  contributions: (settings) => [contribute(RULESET_PARTS, pppServerContributor(settings.portalPort)), contribute(PORTAL_NOTICE_SOURCES, pppExpiredNotices)],
  // OpenWrt runs its PPP servers from their own packages and init scripts, which this domain
  // does not render: there the servers are not configured at all rather than left half-applied.
  configDomains: ({ settings }) => (settings.driver === 'openwrt' ? [] : [pppServerDomain(settings)]),
  activation: { linux: pppServerLinuxActivation },
  bindings: pppServerBindings,
  register(app, ctx) {
    const root = installRoot(ctx.settings);
    registerPppServerRoutes(app, ctx, { root });
    if (ctx.settings.driver === 'openwrt') return;
    const writer = pppSecretsWriter(ctx, root, (error) => app.log.error({ err: error }, 'writing the PPP secrets failed'), {
      // Sessions are real only on the linux driver: elsewhere nothing dials, nothing is ended.
      sessions: ctx.settings.driver === 'linux' ? { root } : null,
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
