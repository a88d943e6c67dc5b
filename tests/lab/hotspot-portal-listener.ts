import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { ipv4ToInt } from '@portico/schema';
import { runCommand } from '../../apps/daemon/src/engine/command-runner.js';
import { NftDataplane } from '../../apps/daemon/src/domains/hotspot/hotspot-dataplane.js';
import { HotspotEngine } from '../../apps/daemon/src/domains/hotspot/hotspot-engine.js';
import { hotspotConfigOf } from '../../apps/daemon/src/domains/hotspot/hotspot-config.js';
import { linuxNeighbours } from '../../apps/daemon/src/domains/hotspot/hotspot-neighbours.js';
import { buildPortalServer } from '../../apps/daemon/src/domains/hotspot/hotspot-portal.js';
import { NftReminderRedirect } from '../../apps/daemon/src/domains/hotspot/hotspot-reminder.js';
import type { ConfigSnapshot } from '../../apps/daemon/src/config/config-types.js';

/**
 * The daemon's hotspot engine and portal listener, alone, for a lab gateway namespace: bundled
 * by the hotspot lab tests and run there with `ip netns exec`, so the firewall's redirect lands
 * on the real portal. Input: a JSON file named by argv[2] with the configuration snapshot, the
 * portal port and folder, the zone's gateway address and client range, and optionally local
 * accounts and `manual` (no accounting timers: lines on stdin drive it, `tick` runs one
 * accounting round, `list` prints the expiry reminder list).
 */
interface ListenerInput {
  snapshot: ConfigSnapshot;
  port: number;
  portalDir: string;
  gateway: string;
  first: string;
  last: string;
  accounts?: Record<string, { password: string; plan: string }>;
  manual?: boolean;
}

const input = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ListenerInput;
const config = hotspotConfigOf(input.snapshot);
const zone = config.zones[0]!;
const [first, last] = [ipv4ToInt(input.first), ipv4ToInt(input.last)];
const engine = new HotspotEngine({
  dataplane: new NftDataplane(runCommand),
  config: () => config,
  reminders: new NftReminderRedirect(runCommand),
  credentials: {
    async verifyLocalUser(username: string, password: string) {
      const account = input.accounts?.[username];
      if (!account || account.password !== password) return { ok: false, error: 'portal.error.userOrPassword' };
      // As the device's local users do: the engine applies the plan's validity from the first login.
      return { ok: true, grant: { account: username, plan: account.plan, expiresAt: null, flowBytes: null, usernum: 0, upKbps: 0, downKbps: 0 } };
    },
    redeemVoucher: async () => ({ ok: false, error: 'portal.error.code' }),
  },
  report: (error, what) => process.stderr.write(`${what}: ${String(error)}\n`),
});
await engine.start();
if (!input.manual) engine.startTimers();
const portal = await buildPortalServer({
  engine,
  portalPort: input.port,
  portalDir: input.portalDir,
  neighbours: linuxNeighbours(runCommand),
  zoneFor(ip: string) {
    try {
      const value = ipv4ToInt(ip);
      return value >= first && value <= last ? { zone, gateway: input.gateway } : null;
    } catch {
      return null;
    }
  },
  notices: () => ({ local: '', expired: config.reminder?.content ?? '', renewUrl: config.reminder?.url ?? '' }),
});
await portal.listen({ port: input.port, host: '0.0.0.0' });
process.stdout.write('ready\n');

async function stop(): Promise<never> {
  await portal.close();
  await engine.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'tick') {
    await engine.tick();
    process.stdout.write('ticked\n');
  } else if (line === 'list') {
    process.stdout.write(`list ${JSON.stringify(engine.reminderList())}\n`);
  }
}
if (input.manual) await stop();
