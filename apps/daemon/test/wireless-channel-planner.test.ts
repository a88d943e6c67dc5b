import { describe, expect, test } from 'vitest';
import { channelsFor } from '@portico/schema';
import {
  acsChannels,
  isDfsChannel,
  planChannels,
  radioCandidates,
  siteScore,
  WirelessPlanError,
  type ChannelPlan,
  type PlanAp,
  type PlanRadio,
  type ScanNeighbour,
} from '../src/domains/wireless/wireless-channel-planner.js';
import { floorPlan } from './fixtures/wireless/wireless-floor-plan.js';

function mac(group: number, n: number): string {
  return `02:00:00:00:${group.toString(16).padStart(2, '0')}:${n.toString(16).padStart(2, '0')}`;
}

function radio(band: '2g' | '5g', channel: number, n: number, extra: Partial<PlanRadio> = {}): PlanRadio {
  return { band, bssids: [mac(band === '2g' ? 1 : 2, n)], channel, width: 20, dfsAllowed: false, txPowerDbm: 20, ...extra };
}

function foreign(n: number, channel: number, signalDbm: number, width = 20): ScanNeighbour {
  return { bssid: mac(0xf0, n), channel, width, signalDbm };
}

function ap(id: string, radios: PlanRadio[], scan: PlanAp['scan'], country = 'US'): PlanAp {
  return { id, country, radios, scan };
}

function radioOf(plan: ChannelPlan, apId: string, band: '2g' | '5g') {
  const found = plan.aps.find((a) => a.id === apId)?.radios.find((r) => r.band === band);
  if (!found) throw new Error(`no ${band} radio of ${apId} in the plan`);
  return found;
}

/** MHz span of a channel at a width, as the planner models it (20 MHz here). */
function spans20(band: '2g' | '5g', channel: number): [number, number] {
  const centre = band === '2g' ? 2407 + 5 * channel : 5000 + 5 * channel;
  return [centre - 10, centre + 10];
}

function allowed(country: string, band: '2g' | '5g'): number[] {
  return channelsFor(country, band).flatMap((o) => (typeof o.value === 'number' ? [o.value] : []));
}

/** The input with every radio on the plan's channel and width. */
function applied(aps: PlanAp[], plan: ChannelPlan): PlanAp[] {
  return aps.map((a) => ({
    ...a,
    radios: a.radios.map((r) => {
      const planned = radioOf(plan, a.id, r.band as '2g' | '5g');
      return { ...r, channel: planned.channel, width: planned.width };
    }),
  }));
}

function expectCode(run: () => unknown, code: string): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(WirelessPlanError);
  expect((caught as WirelessPlanError).code).toBe(code);
}

describe('channel planner', () => {
  const site = floorPlan({ seed: 7, aps: 24, foreign: 12 });

  test('the same seed gives the same plan, whatever order the APs are listed in', () => {
    const first = planChannels(site, { seed: 5 });
    expect(planChannels(site, { seed: 5 })).toEqual(first);
    const reversed = planChannels([...site].reverse(), { seed: 5 });
    expect(reversed.scoreAfter).toBeCloseTo(first.scoreAfter, 15);
    for (const a of site) expect(reversed.aps.find((x) => x.id === a.id)).toEqual(first.aps.find((x) => x.id === a.id));
  });

  test('every seed holds the documented bound: no worse than now, and no single radio can do better alone', () => {
    const plans = [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => planChannels(site, { seed }));
    const before = siteScore(site);
    for (const plan of plans) {
      expect(plan.converged).toBe(true);
      expect(plan.scoreBefore).toBeCloseTo(before, 15);
      expect(plan.scoreAfter).toBeLessThanOrEqual(plan.scoreBefore);
      expect(plan.scoreAfter).toBeLessThan(plan.scoreBefore / 2);
      const onPlan = applied(site, plan);
      // The plan's own score is the score of the site on those channels.
      expect(siteScore(onPlan) / plan.scoreAfter).toBeCloseTo(1, 9);
      // 1-opt: moving any one radio to any other channel it may take does not lower the total,
      // but for a 2.4 GHz radio leaving the non-overlapping set (the preference allows that).
      onPlan.forEach((a, i) => {
        a.radios.forEach((r, j) => {
          const band = r.band as '2g' | '5g';
          const { candidates } = radioCandidates(band, allowed(a.country, band), r.width as 20 | 40 | 80, r.dfsAllowed);
          const onSet = candidates.find((c) => c.channel === r.channel)?.preferred === true;
          for (const c of candidates) {
            if (c.channel === r.channel || (onSet && !c.preferred)) continue;
            const moved = onPlan.map((x, xi) => (xi !== i ? x : { ...x, radios: x.radios.map((y, yj) => (yj === j ? { ...y, channel: c.channel } : y)) }));
            expect(siteScore(moved)).toBeGreaterThanOrEqual(plan.scoreAfter * (1 - 1e-9));
          }
        });
      });
    }
    // Different seeds may settle in different local optima.
    expect(new Set(plans.map((p) => JSON.stringify(p.aps))).size).toBeGreaterThan(1);
  });

  test('two managed APs that hear each other strongly end on channels that do not overlap', () => {
    const aps = [
      ap('a', [radio('2g', 6, 1)], { '2g': [{ bssid: mac(1, 2), channel: 6, width: 20, signalDbm: -35 }] }),
      ap('b', [radio('2g', 6, 2)], { '2g': [{ bssid: mac(1, 1), channel: 6, width: 20, signalDbm: -37 }] }),
    ];
    for (const seed of [1, 2, 3]) {
      const plan = planChannels(aps, { seed });
      const [a0, a1] = spans20('2g', radioOf(plan, 'a', '2g').channel);
      const [b0, b1] = spans20('2g', radioOf(plan, 'b', '2g').channel);
      expect(Math.min(a1, b1) - Math.max(a0, b0)).toBeLessThanOrEqual(0);
      expect(plan.scoreAfter).toBe(0);
      expect(plan.scoreBefore).toBeGreaterThan(0);
      // One of them moved, naming the other as the interferer it left.
      const moved = plan.aps.flatMap((x) => x.radios.flatMap((r) => r.reasons));
      expect(moved).toContainEqual(expect.objectContaining({ code: 'avoidsManagedAp' }));
    }
  });

  test('a managed AP heard only one way is weighed both ways (reciprocity)', () => {
    // b heard nothing (its scan came back empty): the link a heard still keeps them apart.
    const aps = [
      ap('a', [radio('2g', 1, 1)], { '2g': [{ bssid: mac(1, 2), channel: 1, width: 20, signalDbm: -40 }] }),
      ap('b', [radio('2g', 1, 2, { txPowerDbm: 10 })], { '2g': [] }),
    ];
    const plan = planChannels(aps);
    expect(radioOf(plan, 'a', '2g').channel).not.toBe(radioOf(plan, 'b', '2g').channel);
    // b's received interference was estimated 10 dB lower than a's (a sends 10 dB more).
    expect(radioOf(plan, 'b', '2g').scoreBefore / radioOf(plan, 'a', '2g').scoreBefore).toBeCloseTo(10, 6);
  });

  test('foreign networks are avoided; the reason names the strongest one left behind', () => {
    const aps = [ap('a', [radio('2g', 1, 1)], { '2g': [foreign(1, 1, -40), foreign(2, 6, -45)] })];
    const plan = planChannels(aps);
    const r = radioOf(plan, 'a', '2g');
    expect(r.channel).toBe(11);
    expect(r.reasons).toEqual([{ code: 'avoidsForeignNetwork', bssid: mac(0xf0, 1) }]);
    expect(r.scoreAfter).toBe(0);
  });

  test('2.4 GHz prefers the non-overlapping set, but scores honestly', () => {
    // Nothing heard: a radio on channel 3 moves to the set at no cost.
    const quiet = planChannels([ap('a', [radio('2g', 3, 1)], { '2g': [] })]);
    expect([1, 6, 11]).toContain(radioOf(quiet, 'a', '2g').channel);
    expect(radioOf(quiet, 'a', '2g').reasons).toEqual([{ code: 'nothingHeard' }, { code: 'nonOverlappingSet' }]);
    // Strong networks on all of 1, 6 and 11 (US): channel 3/4 or 8/9 hears 0.75 of one network
    // (half of one, a quarter of the next), below the 0.8 the set is weighed at, and wins.
    const crowded = planChannels([ap('a', [radio('2g', 1, 1)], { '2g': [foreign(1, 1, -40), foreign(2, 6, -40), foreign(3, 11, -40)] })]);
    const r = radioOf(crowded, 'a', '2g');
    expect([1, 6, 11]).not.toContain(r.channel);
    expect(r.scoreAfter).toBeLessThan(r.scoreBefore);
  });

  test('country channel lists: 12 and 13 exist in JP and CN, not in the US', () => {
    const scan = { '2g': [foreign(1, 1, -40), foreign(2, 5, -40), foreign(3, 9, -40), foreign(4, 6, -40)] };
    for (const country of ['JP', 'CN']) {
      expect(radioOf(planChannels([ap('a', [radio('2g', 1, 1)], scan, country)]), 'a', '2g').channel).toBe(13);
    }
    for (const seed of [1, 2, 3, 4]) {
      const channel = radioOf(planChannels([ap('a', [radio('2g', 1, 1)], scan, 'US')], { seed }), 'a', '2g').channel;
      expect(channel).toBeLessThanOrEqual(11);
    }
    expectCode(() => planChannels([ap('a', [radio('2g', 13, 1)], {}, 'US')]), 'channelNotInCatalogue');
  });

  test('country channel lists on 5 GHz: CN has no 100–140, JP has no 149–165', () => {
    const busyLow = Array.from({ length: 8 }, (_, i) => foreign(i, 36 + 4 * i, -40));
    const busyHigh = Array.from({ length: 5 }, (_, i) => foreign(20 + i, 149 + 4 * i, -40));
    const cn = radioOf(planChannels([ap('a', [radio('5g', 36, 1, { dfsAllowed: true })], { '5g': busyLow }, 'CN')]), 'a', '5g');
    expect(cn.channel).toBeGreaterThanOrEqual(149);
    expect(allowed('CN', '5g')).toContain(cn.channel);
    const jp = radioOf(planChannels([ap('a', [radio('5g', 36, 1, { dfsAllowed: true })], { '5g': [...busyLow, ...busyHigh] }, 'JP')]), 'a', '5g');
    expect(jp.channel).toBeGreaterThanOrEqual(100);
    expect(jp.channel).toBeLessThanOrEqual(140);
    expectCode(() => planChannels([ap('a', [radio('5g', 149, 1)], {}, 'JP')]), 'channelNotInCatalogue');
    expectCode(() => planChannels([ap('a', [radio('5g', 100, 1)], {}, 'CN')]), 'channelNotInCatalogue');
  });

  test('DFS channels are used only by radios that allow DFS', () => {
    const nonDfsBusy = [36, 40, 44, 48, 149, 153, 157, 161, 165].map((c, i) => foreign(i, c, -45));
    const without = radioOf(planChannels([ap('a', [radio('5g', 36, 1)], { '5g': nonDfsBusy })]), 'a', '5g');
    expect(isDfsChannel('5g', without.channel)).toBe(false);
    const withDfs = radioOf(planChannels([ap('a', [radio('5g', 36, 1, { dfsAllowed: true })], { '5g': nonDfsBusy })]), 'a', '5g');
    expect(isDfsChannel('5g', withDfs.channel)).toBe(true);
    // On a DFS channel without DFS allowed: moved off it, and says why.
    const forced = radioOf(planChannels([ap('a', [radio('5g', 52, 1)], { '5g': [] })]), 'a', '5g');
    expect(isDfsChannel('5g', forced.channel)).toBe(false);
    expect(forced.reasons).toContainEqual({ code: 'dfsNotAllowed' });
  });

  test('widths are kept where their block fits, 5 GHz blocks start on their first channel', () => {
    const plan = planChannels([ap('a', [radio('5g', 40, 1, { width: 80 })], { '5g': [foreign(1, 36, -40, 80)] })]);
    const r = radioOf(plan, 'a', '5g');
    expect(r.width).toBe(80);
    expect(r.channel).toBe(149);
    // Same block as now keeps the radio's own primary channel.
    expect(radioOf(planChannels([ap('a', [radio('5g', 40, 1, { width: 80 })], { '5g': [] })]), 'a', '5g')).toMatchObject({ channel: 40, width: 80, reasons: [{ code: 'nothingHeard' }, { code: 'unchanged' }] });
    // A width that fits nowhere drops to the next one that does.
    const narrowed = radioCandidates('5g', [36, 40, 149, 153, 165], 80, false);
    expect(narrowed.width).toBe(40);
    expect(narrowed.candidates.map((c) => c.channel)).toEqual([36, 149]);
    // 2.4 GHz 40 MHz: secondary above up to channel 7, below from 8 (US: 1–7 and 8–11 fit).
    expect(radioCandidates('2g', allowed('US', '2g'), 40, false).candidates.map((c) => c.channel)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  test('malformed input is refused with a code', () => {
    const good = () => ap('a', [radio('2g', 1, 1)], { '2g': [foreign(1, 6, -60)] });
    expectCode(() => planChannels([{ ...good(), radios: [{ ...radio('2g', 1, 1), band: '6g' }] }]), 'unknownBand');
    expectCode(() => planChannels([{ ...good(), scan: { '60g': [] } }]), 'unknownBand');
    expectCode(() => planChannels([{ ...good(), country: 'XX' }]), 'unknownCountry');
    expectCode(() => planChannels([good(), good()]), 'duplicateAp');
    expectCode(() => planChannels([{ ...good(), id: '' }]), 'apIdInvalid');
    expectCode(() => planChannels([{ ...good(), radios: [radio('2g', 1, 1), radio('2g', 6, 2)] }]), 'duplicateRadio');
    expectCode(() => planChannels([{ ...good(), radios: [radio('2g', 1, 1, { width: 80 })] }]), 'widthInvalid');
    expectCode(() => planChannels([{ ...good(), radios: [radio('2g', 1, 1, { txPowerDbm: 99 })] }]), 'txPowerInvalid');
    expectCode(() => planChannels([{ ...good(), radios: [radio('2g', 1, 1, { bssids: ['nope'] })] }]), 'bssidInvalid');
    expectCode(() => planChannels([good(), { ...good(), id: 'b' }]), 'duplicateBssid');
    expectCode(() => planChannels([{ ...good(), scan: { '2g': [foreign(1, 15, -60)] } }]), 'neighbourChannelInvalid');
    expectCode(() => planChannels([{ ...good(), scan: { '5g': [foreign(1, 37, -60)] } }]), 'neighbourChannelInvalid');
    expectCode(() => planChannels([{ ...good(), scan: { '2g': [foreign(1, 6, -60, 160)] } }]), 'neighbourWidthInvalid');
    expectCode(() => planChannels([{ ...good(), scan: { '2g': [foreign(1, 6, Number.NaN)] } }]), 'signalInvalid');
    expectCode(() => planChannels([{ ...good(), scan: { '2g': [foreign(1, 6, 20)] } }]), 'signalInvalid');
    expectCode(() => planChannels([{ ...good(), scan: { '2g': Array.from({ length: 1025 }, (_, i) => ({ ...foreign(0, 6, -80), bssid: `02:aa:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}` })) } }]), 'tooManyNeighbours');
    expectCode(() => planChannels([good()], { seed: 1.5 }), 'seedInvalid');
    // Shapes a hostile device report might take.
    expectCode(() => planChannels([{ ...good(), radios: 'many' } as unknown as PlanAp]), 'radiosInvalid');
    expectCode(() => planChannels([{ ...good(), radios: [{ ...radio('2g', 1, 1), bssids: null }] } as unknown as PlanAp]), 'radiosInvalid');
    expectCode(() => planChannels([{ ...good(), scan: { '2g': 'none' } } as unknown as PlanAp]), 'scanInvalid');
    expectCode(() => planChannels([{ ...good(), scan: { '2g': [null] } } as unknown as PlanAp]), 'scanInvalid');
    expectCode(() => planChannels([null as unknown as PlanAp]), 'apIdInvalid');
  });
});

describe('hostapd ACS stand-in', () => {
  test('picks the least busy channel spec, as hostapd does on a survey', () => {
    const plan = acsChannels([ap('a', [radio('2g', 6, 1)], { '2g': [foreign(1, 1, -50), foreign(2, 6, -50), foreign(3, 6, -55)] })]);
    expect(radioOf(plan, 'a', '2g').channel).toBe(11);
    // 5 GHz 40 MHz: the primary is the first channel of the block.
    const five = acsChannels([ap('a', [radio('5g', 36, 1, { width: 40 })], { '5g': [foreign(1, 36, -50, 40), foreign(2, 149, -50, 40)] })]);
    expect(radioOf(five, 'a', '5g').channel).toBe(44);
  });

  test('APs deciding alone herd onto one channel; the planner does not', () => {
    // Two APs side by side, both hearing the same strong networks on 1 and 11.
    const scan = (other: number) => ({ '2g': [foreign(1, 1, -40), foreign(2, 11, -40), { bssid: mac(1, other), channel: 1, width: 20, signalDbm: -45 }] });
    const aps = [ap('a', [radio('2g', 1, 1)], scan(2)), ap('b', [radio('2g', 1, 2)], scan(1))];
    const acs = acsChannels(aps);
    expect(radioOf(acs, 'a', '2g').channel).toBe(6);
    expect(radioOf(acs, 'b', '2g').channel).toBe(6);
    const plan = planChannels(aps);
    expect(radioOf(plan, 'a', '2g').channel).not.toBe(radioOf(plan, 'b', '2g').channel);
    expect(plan.scoreAfter).toBeLessThan(acs.scoreAfter);
  });

  test('on a generated site the planner scores below the ACS choice', () => {
    const site = floorPlan({ seed: 11, aps: 40 });
    expect(planChannels(site).scoreAfter).toBeLessThan(acsChannels(site).scoreAfter);
  });
});
