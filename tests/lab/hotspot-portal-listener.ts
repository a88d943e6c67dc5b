import { readFileSync } from 'node:fs';
import { ipv4ToInt } from '@portico/schema';
import { runCommand } from '../../apps/daemon/src/engine/command-runner.js';
import { NftDataplane } from '../../apps/daemon/src/domains/hotspot/hotspot-dataplane.js';
import { HotspotEngine } from '../../apps/daemon/src/domains/hotspot/hotspot-engine.js';
import { hotspotConfigOf } from '../../apps/daemon/src/domains/hotspot/hotspot-config.js';
import { linuxNeighbours } from '../../apps/daemon/src/domains/hotspot/hotspot-neighbours.js';
import { buildPortalServer } from '../../apps/daemon/src/domains/hotspot/hotspot-portal.js';
import type { ConfigSnapshot } from '../../apps/daemon/src/config/config-types.js';

/**
 * The daemon's hotspot engine and portal listener, alone, for a lab gateway namespace: bundled
 * by hotspot-access.test.ts and run there with `ip netns exec`, so the firewall's redirect
 * lands on the real portal. Input: a JSON file named by argv[2] with the configuration
 * snapshot, the portal port and folder, and the zone's gateway address and client range.
 */
interface ListenerInput {
  snapshot: ConfigSnapshot;
  port: number;
  portalDir: string;
  gateway: string;
  first: string;
  last: string;
}

const input = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ListenerInput;
const config = hotspotConfigOf(input.snapshot);
const zone = config.zones[0]!;
const [first, last] = [ipv4ToInt(input.first), ipv4ToInt(input.last)];
const engine = new HotspotEngine({
  dataplane: new NftDataplane(runCommand),
  config: () => config,
  credentials: {
    verifyLocalUser: async () => ({ ok: false, error: 'portal.error.userOrPassword' }),
    redeemVoucher: async () => ({ ok: false, error: 'portal.error.code' }),
  },
  report: (error, what) => process.stderr.write(`${what}: ${String(error)}\n`),
});
await engine.start();
engine.startTimers();
const portal = await buildPortalServer({
  engine,
  portalPort: input.port,
  portalDir: input.portalDir,
  neighbours: linuxNeighbours(runCommand),
  zoneFor(ip) {
    try {
      const value = ipv4ToInt(ip);
      return value >= first && value <= last ? { zone, gateway: input.gateway } : null;
    } catch {
      return null;
    }
  },
  notices: () => ({ local: '', expired: '', renewUrl: '' }),
});
await portal.listen({ port: input.port, host: '0.0.0.0' });
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void portal
    .close()
    .then(() => engine.stop())
    .finally(() => process.exit(0));
});
