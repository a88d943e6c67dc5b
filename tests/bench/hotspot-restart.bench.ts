// Restart survival with 500 authorised clients: the engine is stopped (its state written), and
// a new one is started from the persisted state, as after a daemon restart. While it is down an
// element nobody authorised is put in the sets (as a stale or forged one would be). Then:
// - the sets hold exactly the 500 clients (budget: 500/500 kept, nothing else held);
// - an authorised lab client still reaches upstream;
// - an unauthorised lab client (the forged element's) gets nothing through (budget 0).
// Several restart cycles; the restore time is the median.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUTH_IP_SET, AUTH_SET, HOTSPOT_TABLE } from '../../apps/daemon/src/domains/hotspot/hotspot-dataplane.js';
import { NftDataplane } from '../../apps/daemon/src/domains/hotspot/hotspot-dataplane.js';
import { labPrerequisites } from '../lab/lab-packages.js';
import { inNs, SERVER_ADDRESS } from '../lab/lab-topology.js';
import { median, report } from './bench-util.mjs';
import { addressClient, createHotspotLab, ms, round, syntheticClient } from './hotspot-bench-lab.js';

const CLIENTS = Number(process.env.BENCH_HOTSPOT_RESTART_CLIENTS ?? 500);
const CYCLES = Number(process.env.BENCH_HOTSPOT_RESTARTS ?? 3);
const AUTHORISED_IP = '192.168.11.20';
const INTRUDER_IP = '192.168.11.21';

const blocker = labPrerequisites();
if (blocker) {
  console.log(JSON.stringify({ bench: 'hotspot-restart', skipped: blocker }));
  process.exit(process.env.BENCH_STRICT ? 1 : 0);
}

const lab = await createHotspotLab({ clients: 2, httpServer: true });
const [member, intruder] = lab.gateway.lab.clients as [(typeof lab.gateway.lab.clients)[0], (typeof lab.gateway.lab.clients)[0]];
addressClient(member.ns, member.ifname, AUTHORISED_IP);
addressClient(intruder.ns, intruder.ifname, INTRUDER_IP);
const stateDir = mkdtempSync(join(tmpdir(), 'portico-bench-hotspot-'));
const stateFile = join(stateDir, 'hotspot-state.json');
const zone = lab.config.zones[0]!;
const key = (c: { mac: string; ip: string }) => `${c.mac}|${c.ip}`;

/** Whether anything of the namespace's gets upstream: the web page, another TCP port, ping. */
function reaches(ns: string): { web: boolean; tcp: boolean; ping: boolean } {
  const web = inNs(ns, ['busybox', 'wget', '-q', '-O', '-', `http://${SERVER_ADDRESS}/`], { allowFail: true, timeoutMs: 6000 }).stdout.includes('upstream-ok');
  // Port 80 is served upstream; a connection that opens means the packet got through.
  const tcp = inNs(ns, ['busybox', 'nc', '-w', '2', SERVER_ADDRESS, '80'], { allowFail: true, timeoutMs: 5000, input: '' }).status === 0;
  const ping = inNs(ns, ['ping', '-c', '1', '-W', '1', SERVER_ADDRESS], { allowFail: true, timeoutMs: 4000 }).status === 0;
  return { web, tcp, ping };
}

const restoreTimes: number[] = [];
let keptMin = CLIENTS;
let extraMax = 0;
let unauthorisedThrough = 0;
let authorisedBlocked = 0;
let firstProbeMissed = 0;
try {
  const expected = new Set([key({ mac: member.mac, ip: AUTHORISED_IP }), ...Array.from({ length: CLIENTS - 1 }, (_, i) => key(syntheticClient(i)))]);
  let engine = lab.engine({ stateFile });
  await engine.start();
  const outcomes = await Promise.all([
    engine.login({ mac: member.mac, ip: AUTHORISED_IP }, zone, { method: 'onekey' }),
    ...Array.from({ length: CLIENTS - 1 }, (_, i) => engine.login(syntheticClient(i), zone, { method: 'onekey' })),
  ]);
  if (outcomes.some((o) => !o.ok)) throw new Error('a login was refused');
  // Before any restart: the member is through, the intruder is not (the probes themselves work).
  // The upstream web server starts with the lab: wait for it.
  if (!(await lab.gateway.fetchUpstream(member.ns, 25))) throw new Error('the authorised client does not reach upstream before the restart');

  for (let cycle = 0; cycle < CYCLES; cycle++) {
    await engine.stop();
    inNs(lab.gateway.lab.gw, ['nft', '-f', '-'], {
      input: `add element ${HOTSPOT_TABLE} ${AUTH_SET} { ${intruder.mac} . ${INTRUDER_IP} }\nadd element ${HOTSPOT_TABLE} ${AUTH_IP_SET} { ${INTRUDER_IP} }\n`,
    });
    engine = lab.engine({ stateFile });
    const started = process.hrtime.bigint();
    await engine.start();
    restoreTimes.push(ms(started));

    const held = await new NftDataplane(lab.inGateway).counters();
    const keys = new Set(held.map(key));
    const kept = [...expected].filter((k) => keys.has(k)).length;
    keptMin = Math.min(keptMin, kept, engine.list().length);
    extraMax = Math.max(extraMax, [...keys].filter((k) => !expected.has(k)).length);
    const ipHeld = (await lab.elementCounts()).authIp;
    extraMax = Math.max(extraMax, ipHeld - CLIENTS);

    const memberGot = reaches(member.ns);
    firstProbeMissed += Number(!memberGot.web);
    if (!memberGot.web && !(await lab.gateway.fetchUpstream(member.ns, 5))) authorisedBlocked += 1;
    const intruderGot = reaches(intruder.ns);
    unauthorisedThrough += Number(intruderGot.web) + Number(intruderGot.tcp) + Number(intruderGot.ping);
  }
  await engine.stop();
} finally {
  await lab.down();
  rmSync(stateDir, { recursive: true, force: true });
}

const pass = report(
  'hotspot-restart',
  {
    clients: CLIENTS,
    restarts: CYCLES,
    kept: keptMin,
    lost: CLIENTS - keptMin,
    extra_held: extraMax,
    unauthorised_through: unauthorisedThrough,
    authorised_blocked: authorisedBlocked,
    authorised_first_probe_missed: firstProbeMissed,
    restore_ms: round(median(restoreTimes)),
    restore_max_ms: round(Math.max(...restoreTimes)),
  },
  { lost: 0, extra_held: 0, unauthorised_through: 0, authorised_blocked: 0 },
);
process.exitCode = pass || !process.env.BENCH_STRICT ? 0 : 1;
