import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hotspotRadius, intToIpv4, ipv4ToInt, PPP_SERVER_KINDS, type L2tpServer, type PppoeServer, type PppServerKind, type PptpServer } from '@portico/schema';
import type { ConfigDomain, ConfigSnapshot } from '../../config/config-types.js';
import type { DriverEnv, ServiceReload, TargetActivation } from '../../config/domain-module.js';
import type { RenderedFile, RenderOutput } from '../../engine/engine-types.js';
import { serializeUci, type UciSection } from '../../engine/uci-format.js';
import { device, fw4Include, integer, ipv4, networkConfigOf, openwrtDevicePlan, planNetwork, RenderValueError, type NetworkPlan, type NftChainDeclaration } from '../network/network-public.js';
import { path, pppEntity, pppExpiredPool, PPP_SERVER_FILES, PPP_SESSION_DIR, remoteRange, renderPptpdConf, renderXl2tpdConf } from './ppp-server-files.js';
import { PPP_RADIUS_FILES, renderPppdFiles } from './ppp-server-radius.js';
import { pppServerContributor } from './ppp-server-ruleset.js';
import { PPP_SERVER_DOMAIN } from './ppp-server-secrets-writer.js';
import { kickPppSession, pppSessions } from './ppp-server-sessions.js';

/**
 * The PPP servers on the `openwrt` driver, each under procd:
 * - L2TP: the `xl2tpd` package runs `xl2tpd` with its default /etc/xl2tpd/xl2tpd.conf, the same
 *   daemon netifd's L2TP clients (proto l2tp) talk to through its control pipe. The file is the
 *   linux driver's xl2tpd.conf while the server is on; off, only its `[global]` part, because
 *   xl2tpd does not start without a configuration file and the clients need it running.
 * - PPPoE: the `rp-pppoe-server` package reads `config pppoe_server` sections of /etc/config/pppoe
 *   (one interface each, so one section per device, the range shared out between them).
 * - PPTP: the linux driver's pptpd.conf, run by the feed's own init script (portico-pptpd):
 *   the `pptpd` package's script replaces /etc/ppp/chap-secrets with a link to a list of its own
 *   (its `login` sections) and appends an `mppe` option of its own to the pppd options, so under
 *   it the other servers' accounts would vanish and the MPPE setting would not hold.
 * - pppd reads the same options files as on linux (/etc/portico/ppp-server/<kind>.options, with
 *   the session hook) and /etc/ppp/chap-secrets and pap-secrets from the secrets writer.
 */
export const OPENWRT_PPP_FILES = {
  xl2tpd: '/etc/xl2tpd/xl2tpd.conf',
  pppoe: '/etc/config/pppoe',
} as const;

/** The feed's init script that runs pptpd from the rendered pptpd.conf (it checks for pptpd itself). */
export const OPENWRT_PPTPD_RELOAD: ServiceReload = { argv: ['/etc/init.d/portico-pptpd', 'reload'] };

/** xl2tpd reads its configuration only at start; procd keeps an instance whose command did not change. */
export const OPENWRT_XL2TPD_RELOAD: ServiceReload = { argv: ['/etc/init.d/xl2tpd', 'restart'], optional: true };
/** A changed section changes the instance's command line: procd restarts it. */
export const OPENWRT_PPPOE_RELOAD: ServiceReload = { argv: ['/etc/init.d/pppoe-server', 'reload'], optional: true };

/** xl2tpd with no server: what it needs to run for netifd's L2TP clients. */
export function renderXl2tpdGlobal(): string {
  return ['; Portico: no L2TP server (rendered, do not edit)', '[global]', 'port = 1701', ''].join('\n');
}

/**
 * /etc/config/pppoe: one `pppoe_server` section per device (the init script passes its one
 * `interface` as `-I`), the server's range shared out in consecutive blocks so two devices never
 * hand out one address; the addresses set aside for expired accounts stay out of every block.
 */
export function renderOpenwrtPppoe(settings: PppoeServer, devices: readonly string[]): string {
  const range = remoteRange(settings);
  const count = range.count - (pppExpiredPool(settings)?.length ?? 0);
  const share = Math.floor(count / devices.length);
  if (share < 1) throw new RenderValueError(`remote range ${JSON.stringify(settings.remoteip)} cannot be shared between ${devices.length} interfaces`);
  const first = ipv4ToInt(range.first);
  const sections: UciSection[] = devices.map((name, index) => ({
    type: 'pppoe_server',
    name: `portico_${index}`,
    options: {
      interface: device(name),
      localip: ipv4(settings.localip),
      firstremoteip: ipv4(intToIpv4(first + index * share)),
      maxsessions: integer(share, 1, 253, 'clients'),
      optionsfile: path(PPP_SERVER_FILES.options('pppoe')),
    },
  }));
  return serializeUci(sections);
}

export function pppServerOpenwrtDomain(systemRoot: string): ConfigDomain {
  return {
    name: PPP_SERVER_DOMAIN,
    entities: [...PPP_SERVER_KINDS.map((kind) => pppEntity(kind).name), 'networkInterface', 'vlan', hotspotRadius.name],
    render(snapshot) {
      const { servers, files } = renderPppdFiles(snapshot, PPP_SERVER_KINDS, systemRoot);
      let xl2tpd = renderXl2tpdGlobal();
      for (const { kind, server } of servers) {
        if (!server.enabled) continue;
        if (kind === 'pptp') files.push({ target: PPP_SERVER_FILES.pptpd, content: renderPptpdConf(server as PptpServer), check: 'pptpd-conf' });
        if (kind === 'l2tp') xl2tpd = renderXl2tpdConf(server as L2tpServer);
        if (kind === 'pppoe') {
          const plan = openwrtDevicePlan(planNetwork(networkConfigOf(snapshot)));
          const devices = server.interfaces.flatMap((name) => plan.deviceOf.get(name) ?? []);
          if (devices.length) files.push({ target: OPENWRT_PPP_FILES.pppoe, content: renderOpenwrtPppoe(server as PppoeServer, devices), check: 'uci', mode: 0o644 });
        }
      }
      files.push({ target: OPENWRT_PPP_FILES.xl2tpd, content: xl2tpd, check: 'xl2tpd-conf', mode: 0o644 });
      // Which servers are on: a server turned off has its sessions ended (their pppd outlive it).
      files.push({ target: PPP_SERVER_FILES.control, content: `${JSON.stringify(Object.fromEntries(servers.map(({ kind, server }) => [kind, server.enabled])))}\n`, check: 'none' });
      const on = servers.some(({ server }) => server.enabled);
      return [{ domain: PPP_SERVER_DOMAIN, files, dirs: on ? [`/${PPP_SESSION_DIR}`] : [] }];
    },
  };
}

/** pppd reads these afresh for every session: installing them is making them live. */
const READ_PER_SESSION = [...PPP_SERVER_KINDS.map((kind) => PPP_SERVER_FILES.options(kind)), ...Object.values(PPP_RADIUS_FILES)];

const RELOADS: Readonly<Record<string, ServiceReload>> = {
  [PPP_SERVER_FILES.pptpd]: OPENWRT_PPTPD_RELOAD,
  [OPENWRT_PPP_FILES.xl2tpd]: OPENWRT_XL2TPD_RELOAD,
  [OPENWRT_PPP_FILES.pppoe]: OPENWRT_PPPOE_RELOAD,
};

export function pppServerOpenwrtActivation(env: Pick<DriverEnv, 'root'>): TargetActivation {
  const activate: Record<string, (file: RenderedFile) => Promise<void>> = {};
  for (const target of READ_PER_SESSION) activate[target] = async () => undefined;
  // The servers' daemons stop under procd; the sessions they spawned do not: ended here.
  activate[PPP_SERVER_FILES.control] = async (file) => {
    const enabled = JSON.parse(file.content) as Partial<Record<PppServerKind, boolean>>;
    for (const kind of PPP_SERVER_KINDS) {
      if (enabled[kind]) continue;
      for (const session of pppSessions({ root: env.root }, kind)) kickPppSession({ root: env.root }, kind, session.ifname);
    }
  };
  return {
    activate,
    reloadFor: (target) => RELOADS[target],
  };
}

/** The program procd runs for each server (its /proc comm). */
const SERVER_PROGRAM: Readonly<Record<PppServerKind, string>> = { pptp: 'pptpd', l2tp: 'xl2tpd', pppoe: 'pppoe-server' };

/**
 * Whether a server's daemon runs on OpenWrt, where procd, not the daemon, runs it: a process of
 * that program in `<kernel>/proc` (xl2tpd also runs for the L2TP clients alone, so the caller
 * asks only of an enabled server, whose LNS it then serves).
 */
export function openwrtServerRunning(kind: PppServerKind, kernel = '/'): boolean {
  let pids: string[];
  try {
    pids = readdirSync(join(kernel, 'proc')).filter((name) => /^\d+$/.test(name));
  } catch {
    return false;
  }
  return pids.some((pid) => {
    try {
      return readFileSync(join(kernel, 'proc', pid, 'comm'), 'utf8').trim() === SERVER_PROGRAM[kind];
    } catch {
      return false;
    }
  });
}

export const OPENWRT_PPP_SERVER_INCLUDES = {
  input: '/usr/share/nftables.d/chain-pre/input/40-portico-ppp-server.nft',
  forward: '/usr/share/nftables.d/chain-pre/forward/40-portico-ppp-server.nft',
  srcnat: '/usr/share/nftables.d/chain-pre/srcnat/40-portico-ppp-server.nft',
  /** "Remind expired users": base chains of their own in fw4's table, ahead of its chains. */
  chains: '/usr/share/nftables.d/table-post/40-portico-ppp-server.nft',
} as const;

const TITLE = 'Portico PPP servers';

function chainLines(chain: NftChainDeclaration): string[] {
  return [`chain ${chain.name} {`, ...(chain.base ? [`\t${chain.base}`] : []), ...chain.rules.map((rule) => `\t${rule}`), '}'];
}

/**
 * The servers' share of fw4 (their ruleset contributor's `openwrt`): the linux part's rules at
 * the top of fw4's input, forward and srcnat chains, before its zones (the sessions' `pppN`
 * devices are in none), with netifd's `pppoe-<wan>` as the PPPoE WANs' devices; the expired
 * pool's chains in fw4's table. None when no server runs.
 */
export function renderOpenwrtPppServerRules(portalPort: number) {
  const contributor = pppServerContributor(portalPort, 'pppoe-*');
  return (snapshot: ConfigSnapshot, plan: NetworkPlan): RenderOutput[] => {
    const part = contributor.part(snapshot, plan);
    if (!part) return [];
    const hooks = part.filter?.hooks ?? {};
    const files = [fw4Include(OPENWRT_PPP_SERVER_INCLUDES.input, TITLE, hooks.input_rules ?? []), fw4Include(OPENWRT_PPP_SERVER_INCLUDES.forward, TITLE, hooks.forward_rules ?? [])];
    const srcnat = part.nat?.hooks?.postrouting_rules ?? [];
    if (srcnat.length) files.push(fw4Include(OPENWRT_PPP_SERVER_INCLUDES.srcnat, TITLE, srcnat));
    const chains = [...(part.filter?.chains ?? []), ...(part.nat?.chains ?? [])];
    if (chains.length) files.push(fw4Include(OPENWRT_PPP_SERVER_INCLUDES.chains, TITLE, chains.flatMap(chainLines)));
    return [{ domain: 'network', files }];
  };
}
