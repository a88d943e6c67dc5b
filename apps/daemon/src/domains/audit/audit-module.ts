import { behaviourAudit } from '@portico/schema';
import { contribute, defineDomain, type DriverEnv, type TargetActivation } from '../../config/domain-module.js';
import type { ConfigDomain } from '../../config/config-types.js';
import type { RenderedFile } from '../../engine/engine-types.js';
import { failure } from '../../plugins/api-envelope.js';
import { RULESET_PARTS } from '../network/network-public.js';
import { AuditCapture } from './audit-capture.js';
import { systemDisks, type DiskLister } from './audit-disks.js';
import { activeRecorders, AuditRecorders, retentionDays, setActiveRecorders, statfsProbe, type DiskProbe } from './audit-recorder.js';
import { AUDIT_MSG, registerAuditRoutes } from './audit-routes.js';
import { auditContributor, auditSettingsOf } from './audit-ruleset.js';

/** What the audit's activation reads: which readers run, and on which disk records go. */
export const AUDIT_FILES = {
  control: '/etc/portico/audit.json',
  sysctl: '/etc/sysctl.d/90-portico-audit.conf',
} as const;

interface AuditControl {
  enabled: boolean;
  urls: boolean;
  flows: boolean;
  disk: string;
}

function readControl(content: string): AuditControl | null {
  try {
    const parsed = behaviourAudit.schema.safeParse(JSON.parse(content));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function auditDomain(): ConfigDomain {
  return {
    name: 'audit',
    entities: [behaviourAudit.name],
    render(snapshot) {
      const settings = auditSettingsOf(snapshot);
      const control: AuditControl = { enabled: settings.enabled, urls: settings.urls, flows: settings.flows, disk: settings.disk };
      const files: RenderedFile[] = [{ target: AUDIT_FILES.control, content: `${JSON.stringify(control)}\n`, check: 'audit-control' }];
      // The ruleset part counts a connection's packets, which conntrack does only with accounting on.
      if (settings.enabled && settings.urls) files.push({ target: AUDIT_FILES.sysctl, content: 'net.netfilter.nf_conntrack_acct = 1\n', check: 'sysctl' });
      return [{ domain: 'audit', files }];
    },
  };
}

/** The capture on the linux driver: started, restarted or stopped as the control file says. */
function auditLinuxActivation(env: DriverEnv): TargetActivation {
  let capture: AuditCapture | null = null;
  async function stop(): Promise<void> {
    const running = capture;
    capture = null;
    await running?.stop();
  }
  return {
    activate: {
      'audit-control': async (file) => {
        await stop();
        const control = readControl(file.content);
        if (!control?.enabled || (!control.urls && !control.flows)) return;
        capture = new AuditCapture(activeRecorders().of(control.disk), control, Date.now, env.spawnPrefix, env.report ?? (() => undefined));
        capture.start();
      },
    },
    stop,
  };
}

export interface AuditDeps {
  /** Disk sizes (tests give small and full disks). */
  probe?: DiskProbe;
  disks?: DiskLister;
}

/**
 * Behaviour audit (spec §1, §2 /security/behavioraudit, §5, §9): URLs and IP flows of LAN
 * clients read from the data path, kept on a disk larger than 500 MB for 3 days to six months
 * by its size, searched and exported by client, time and text.
 */
export const auditModule = defineDomain({
  name: 'audit',
  pages: ['behavioraudit'],
  // Nothing records on OpenWrt (below): the page is left out of the menu there.
  unavailablePages: (settings) => (settings.driver === 'openwrt' ? ['behavioraudit'] : []),
  formats: [{ name: 'audit-control', builtin: (content) => (readControl(content) ? null : 'not an audit control file') }],
  contributions: () => [contribute(RULESET_PARTS, auditContributor)],
  // OpenWrt images carry neither tcpdump nor conntrack-tools: the audit is not rendered there.
  configDomains: ({ settings }) => (settings.driver === 'openwrt' ? [] : [auditDomain()]),
  activation: { linux: auditLinuxActivation },
  bindings: (ctx) => ({
    [behaviourAudit.name]: {
      rules: {
        // Spec §5: the audit needs a disk over 500 MB; the disk must be one the device has.
        async checkWrite(change) {
          const record = change.record as { enabled?: boolean; disk?: string };
          if (!record.enabled) return undefined;
          // Nothing would record there: the switch is refused rather than saved to no effect.
          if (ctx.settings.driver === 'openwrt') return failure(AUDIT_MSG.unsupported);
          const disk = (await listerOf(ctx)()).find((d) => d.path === (record.disk ?? ''));
          if (!disk) return failure(AUDIT_MSG.diskMissing, { disk: AUDIT_MSG.diskMissing });
          if (retentionDays(disk.total) === null) return failure(AUDIT_MSG.diskTooSmall, { disk: AUDIT_MSG.diskTooSmall });
          return undefined;
        },
      },
    },
  }),
  register(app, ctx, deps: AuditDeps | undefined) {
    const probe = deps?.probe ?? statfsProbe;
    const recorders = new AuditRecorders({ stateDir: ctx.settings.stateDir, now: ctx.now, probe, report: (error) => app.log.warn({ err: error }, 'behaviour audit') });
    setActiveRecorders(recorders);
    const disks = deps?.disks ?? systemDisks(ctx.settings.stateDir, probe);
    listers.set(ctx, disks);
    registerAuditRoutes(app, ctx, disks, recorders);
    // Retention also runs when nothing is recorded (spec §9).
    const timer = setInterval(() => void recorders.of(auditSettingsOf(ctx.config.journal.capture()).disk).maintain(), 10 * 60_000);
    timer.unref();
    return {
      async stop() {
        clearInterval(timer);
        recorders.close();
        setActiveRecorders(null, recorders);
      },
    };
  },
});

const listers = new WeakMap<object, DiskLister>();
/** The disk lister `register` chose (bindings are built before it, used only after). */
function listerOf(ctx: object): DiskLister {
  const lister = listers.get(ctx);
  if (!lister) throw new Error('the audit module has not started');
  return lister;
}
