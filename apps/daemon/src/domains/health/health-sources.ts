import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEALTH_FINDING_KINDS, HEALTH_PROBE_DOMAIN, securityEvents, type HealthFindingKind } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import type { CommandRunner } from '../../engine/command-runner.js';
import { singletonRecord } from '../../config/config-domains.js';
import type { Scheduler } from '../../config/config-types.js';
import { NETWORK_FILES, networkConfigOf, planNetwork, type NetworkPlan } from '../network/network-public.js';
import { helperProbe, linkMacs, neighbourAddresses } from './health-detectors.js';
import type { ExaminationSources, LineState } from './health-examination.js';
import type { HealthSources } from './health-monitor.js';
import { measureUpstream, nameservers, type UpstreamTarget } from './health-network-probe.js';
import { diskUse, memoryUse, sysfsCounters, type LinkCounters } from './health-system.js';

/** The packet helper's name, built by apps/daemon/l2probe-build.mjs beside the bundle. */
export const L2PROBE_NAME = 'portico-l2probe';
const here = dirname(fileURLToPath(import.meta.url));
/** Beside the bundle, then the build's output seen from src/domains/health (tests, the lab). */
export const L2PROBE_PLACES = [join(here, L2PROBE_NAME), join(here, '..', '..', '..', 'dist', L2PROBE_NAME)];

export function l2probePath(places: readonly string[] = L2PROBE_PLACES): string | null {
  return places.find((path) => existsSync(path)) ?? null;
}

/** What a test replaces; the rest comes from the driver. */
export interface HealthDeps extends Partial<HealthSources>, Partial<Pick<ExaminationSources, 'lines' | 'ipv6'>> {
  run?: CommandRunner;
  schedule?: Scheduler;
}

/** The current network plan, or null when the configuration does not plan (nothing to probe). */
function currentPlan(ctx: AppContext): NetworkPlan | null {
  try {
    return planNetwork(networkConfigOf(ctx.config.journal.capture()));
  } catch {
    return null;
  }
}

function eventKinds(ctx: AppContext): Record<HealthFindingKind, boolean> {
  const parsed = securityEvents.schema.safeParse(singletonRecord(ctx.config.journal.capture(), securityEvents.name) ?? {});
  const stored = parsed.success ? parsed.data : securityEvents.schema.parse({});
  return Object.fromEntries(HEALTH_FINDING_KINDS.map((k) => [k, stored[k]])) as Record<HealthFindingKind, boolean>;
}

/** Each WAN's first configured DNS server, else the first its DHCP or PPPoE client learnt. */
function upstreamsOf(plan: NetworkPlan | null, root: string): UpstreamTarget[] {
  if (!plan) return [];
  let learnt: string[] | undefined;
  const out: UpstreamTarget[] = [];
  for (const wan of plan.wans) {
    if (!wan.row.enabled) continue;
    let server = wan.row.dns[0];
    if (!server && wan.dynamic) {
      try {
        learnt ??= nameservers(readFileSync(`${root}${NETWORK_FILES.wanResolv}`, 'utf8'));
      } catch {
        learnt = [];
      }
      server = learnt[0];
    }
    if (server) out.push({ interface: wan.name, server, domain: HEALTH_PROBE_DOMAIN });
  }
  return out;
}

/**
 * The monitor's and the check's sources on this driver. On linux the LAN probes go through the
 * packet helper and link statistics come from /sys; the simulator has no packets to send, so
 * its probes report "not probed" and its links are the simulated ones.
 */
export function healthSources(ctx: AppContext, deps: HealthDeps, run: CommandRunner): HealthSources & ExaminationSources {
  const { settings } = ctx;
  const root = settings.systemRoot === '/' ? '' : settings.systemRoot.replace(/\/+$/, '');
  const real = settings.driver !== 'sim';
  const helper = real ? l2probePath() : null;
  const plan = () => currentPlan(ctx);

  const links = (): Array<{ interface: string; device: string; counters: LinkCounters }> => {
    if (!real) {
      return ctx.live.netif().items.map((n) => ({
        interface: n.ifname,
        device: n.ifname,
        counters: { rxBytes: n.rx_bytes, txBytes: n.tx_bytes, rxPackets: null, txPackets: null, rxDropped: null, txDropped: null },
      }));
    }
    const out: Array<{ interface: string; device: string; counters: LinkCounters }> = [];
    for (const i of plan()?.interfaces ?? []) {
      const counters = sysfsCounters('/sys/class/net', i.l3);
      if (counters) out.push({ interface: i.name, device: i.l3, counters });
    }
    return out;
  };

  const lines = (): LineState[] =>
    ctx.live
      .netif()
      .items.filter((n) => n.role === 'wan')
      .map((n) => ({ name: n.ifname, up: n.status === 'up', addressed: n.ipaddr !== '' || (n.proto === 'pppoe' && n.status === 'up') }));

  const ipv6 = async (): Promise<boolean | null> => {
    if (!real) return null;
    const devices = new Set((plan()?.wans ?? []).map((w) => w.l3));
    const result = await run(['ip', '-j', '-6', 'addr', 'show', 'scope', 'global'], { timeoutMs: 5000 });
    if (result.exitCode !== 0) return null;
    try {
      const list = JSON.parse(result.stdout) as Array<{ ifname?: string; addr_info?: unknown[] }>;
      return Array.isArray(list) && list.some((l) => typeof l.ifname === 'string' && devices.has(l.ifname) && (l.addr_info?.length ?? 0) > 0);
    } catch {
      return null;
    }
  };

  return {
    probe: deps.probe !== undefined ? deps.probe : helper ? helperProbe(run, helper) : null,
    macs: deps.macs ?? (() => linkMacs(run)),
    targets:
      deps.targets ??
      (() =>
        (plan()?.lans ?? [])
          .filter((l) => l.row.enabled && l.ports.length > 0 && l.addresses.length > 0)
          .map((l) => ({ interface: l.name, device: l.l2, addresses: l.addresses.map((a) => a.address) }))),
    neighbours: deps.neighbours ?? ((device) => neighbourAddresses(run, device)),
    links: deps.links ?? links,
    upstreams: deps.upstreams ?? (() => (real ? upstreamsOf(plan(), root) : [])),
    measure: deps.measure ?? ((target) => measureUpstream(target)),
    disk: deps.disk ?? (() => diskUse(real ? ['/', settings.stateDir] : [settings.stateDir])),
    memory: deps.memory ?? (() => memoryUse()),
    eventKinds: deps.eventKinds ?? (() => eventKinds(ctx)),
    lines: deps.lines ?? lines,
    ipv6: deps.ipv6 ?? ipv6,
  };
}
