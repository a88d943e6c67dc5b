import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { fieldErrors, MSG, systemHost, writeSchema, type AnyEntity, type SystemHost } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { singletonRecord } from '../../config/config-domains.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { actorOf, withConfirm } from '../../config/config-write.js';
import { contribute, defineDomain } from '../../config/domain-module.js';
import { configRowSingleton, type EntityRow } from '../../config/entity-store.js';
import { activateWith } from '../../engine/engine-types.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { SYSTEM_UCI_OPTIONS, type SystemUciContributor } from '../system-time/system-time-public.js';

const HOSTNAME_FILE = '/etc/hostname';
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

function savedHost(snapshot: ConfigSnapshot): SystemHost | undefined {
  const stored = singletonRecord(snapshot, systemHost.name);
  return stored ? (systemHost.schema.parse(stored) as SystemHost) : undefined;
}

function hostLabel(hostname: string): string {
  if (!LABEL.test(hostname)) throw new Error(`host name ${JSON.stringify(hostname.slice(0, 70))} cannot be rendered`);
  return hostname;
}

/** On OpenWrt the name is `system.@system[0].hostname`, in the package the time domain renders. */
const hostnameUci: SystemUciContributor = {
  entities: [systemHost.name],
  options: (snapshot) => {
    const host = savedHost(snapshot);
    return host ? { hostname: hostLabel(host.hostname) } : undefined;
  },
};

/**
 * POST /api/sysconf/system (spec §7): `get` answers the system information (hostname, model,
 * version, uptime …, as GET does), `update` sets the device's host name, written like any
 * setting (journalled, applied). The name is also its own entity at sysconf/hostname.
 */
function registerSystemInfo(app: FastifyInstance, ctx: AppContext): void {
  const entity = systemHost as unknown as AnyEntity;
  const store = configRowSingleton(ctx.db, entity.name, ctx.now);
  app.post(
    '/api/sysconf/system',
    { config: { policy: { module: 'networkparameter', effect: 'write', actionEffects: { get: 'read' } }, doc: { summary: 'Read the system information or set the host name' } } },
    async (request) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const action = body.action ?? 'update';
      if (action === 'get') return success(ctx.live.system());
      if (action !== 'update') return failure(MSG.invalid, { action: 'validation.option' });
      const parsed = writeSchema(entity, 'update').safeParse({ hostname: body.hostname });
      if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
      const previous = await store.read();
      const record = parsed.data as EntityRow;
      const outcome = await ctx.config.write({
        entity,
        actor: actorOf(request),
        intent: [{ entity: entity.name, id: '', action: 'update', before: previous, after: record }],
        mutate: () => store.write(record) as EntityRow,
        describe: (saved) => [{ entity: entity.name, id: '', action: 'update', before: previous, after: saved }],
      });
      if (!outcome.ok) return outcome.reply;
      return success(withConfirm({ hostname: String(outcome.result.hostname) }, outcome));
    },
  );
}

/**
 * System information and the host name: /etc/hostname once saved; on a system booted with
 * systemd the running name follows (`hostname <name>`), never in a container or the lab, where
 * the name belongs to the host.
 */
export const systemInfoModule = defineDomain({
  name: 'system-info',
  pages: ['networkparameter'],
  formats: [{ name: 'hostname', builtin: (content) => (content.endsWith('\n') && LABEL.test(content.slice(0, -1)) ? null : 'not one host name') }],
  contributions: () => [contribute(SYSTEM_UCI_OPTIONS, hostnameUci)],
  // On OpenWrt the time domain renders /etc/config/system with the name in it (hostnameUci).
  configDomains: ({ settings }) =>
    settings.driver === 'openwrt'
      ? []
      : [
          {
            name: 'system-info',
            entities: [systemHost.name],
            render: (snapshot) => {
              const host = savedHost(snapshot);
              return [{ domain: 'system-info', files: host ? [{ target: HOSTNAME_FILE, content: `${host.hostname}\n`, check: 'hostname', mode: 0o644 }] : [] }];
            },
          },
        ],
  activation: {
    linux: ({ root, run }) => ({
      activate: {
        hostname: async (file) => {
          if (!existsSync(join(root, '/run/systemd/system'))) return;
          await activateWith(run, file.target, ['hostname', file.content.trim()]);
        },
      },
    }),
  },
  register: (app, ctx) => registerSystemInfo(app, ctx),
});
