// The wireless controller's channel planner on a site of 200 APs (two radios each) with scans
// generated as recorded ones would look: a seeded floor plan, APs on a grid 20 m apart, each
// hearing the others and a scatter of foreign networks at the signal a log-distance path-loss
// model gives (apps/daemon/test/fixtures/wireless/wireless-floor-plan.ts). Figures: plan time
// (median of several runs, budget 1 s), and the interference the plan leaves against the choice
// hostapd's survey-based ACS would make for each radio on the same scans, both scored with the
// planner's model (budget: planner / ACS at most 1).
import { loadavg } from 'node:os';
import { acsChannels, planChannels } from '../../apps/daemon/src/domains/wireless/wireless-channel-planner.js';
import { floorPlan } from '../../apps/daemon/test/fixtures/wireless/wireless-floor-plan.js';
import { median, report } from './bench-util.mjs';

const APS = Number(process.env.BENCH_WIRELESS_APS ?? 200);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const SITE_SEED = 2024;

const site = floorPlan({ seed: SITE_SEED, aps: APS });
const neighbours = site.reduce((n, ap) => n + Object.values(ap.scan).reduce((m, list) => m + list.length, 0), 0);

// Each run plans with its own seed: the time and the score are the planner's, not one seed's luck.
const times: number[] = [];
const scores: number[] = [];
let before = 0;
for (let run = 1; run <= RUNS; run++) {
  const started = process.hrtime.bigint();
  const plan = planChannels(site, { seed: run });
  times.push(Number(process.hrtime.bigint() - started) / 1e6);
  scores.push(plan.scoreAfter);
  before = plan.scoreBefore;
}
const acsStarted = process.hrtime.bigint();
const acs = acsChannels(site);
const acsMs = Number(process.hrtime.bigint() - acsStarted) / 1e6;

const dbm = (mw: number) => Number((10 * Math.log10(mw)).toFixed(2));
const planScore = median(scores);
const pass = report(
  'wireless-channel-plan',
  {
    aps: APS,
    radios: APS * 2,
    scan_entries: neighbours,
    runs: RUNS,
    plan_ms: Math.round(median(times)),
    plan_max_ms: Math.round(Math.max(...times)),
    acs_ms: Math.round(acsMs),
    load_average: Number(loadavg()[0]!.toFixed(1)),
    // Total interference (sum over radios of overlap-weighted received power), mW and dBm.
    score_before_mw: Number(before.toPrecision(4)),
    score_planner_mw: Number(planScore.toPrecision(4)),
    score_acs_mw: Number(acs.scoreAfter.toPrecision(4)),
    score_before_dbm: dbm(before),
    score_planner_dbm: dbm(planScore),
    score_acs_dbm: dbm(acs.scoreAfter),
    score_planner_worst_mw: Number(Math.max(...scores).toPrecision(4)),
    planner_to_acs_ratio: Number((planScore / acs.scoreAfter).toFixed(4)),
    planner_worst_to_acs_ratio: Number((Math.max(...scores) / acs.scoreAfter).toFixed(4)),
  },
  { plan_ms: 1000, planner_to_acs_ratio: 1, planner_worst_to_acs_ratio: 1 },
);
process.exitCode = pass || !process.env.BENCH_STRICT ? 0 : 1;
