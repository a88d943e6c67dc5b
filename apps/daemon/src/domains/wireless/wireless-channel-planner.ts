import {
  channelMhz,
  getCountry,
  isWifiBand,
  TX_POWER_MAX_DBM,
  TX_POWER_MIN_DBM,
  WIFI_BANDS,
  type WifiBand,
} from '@portico/schema';
import { seededRandom } from '../../drivers/sim/sim-rhythm.js';

/**
 * Channel planner of the wireless controller (spec §4 "Channel planning"): from every managed
 * AP's neighbour scan it picks one channel per radio so that the radios of the site hear as
 * little of each other and of foreign networks on their own spectrum as it can arrange.
 *
 * Score (the "interference" of a radio, in mW; lower is better): for every network the radio
 * heard, the received power 10^(dBm/10) times the share of spectrum the two channels overlap
 * (overlapping MHz of the spans centre ± width/2, over the narrower of the two widths: 1 for
 * co-channel, 0.75 for 2.4 GHz channels 1 and 2, 0 for 1 and 6). Foreign networks stay where
 * they are; a managed neighbour (its BSSID is one of a managed radio's) counts at the channel
 * the plan gives it. When only one of two managed radios heard the other, the other direction
 * is estimated by reciprocity: same path loss, so the signal shifts by the difference of the
 * two transmit powers. The total is the sum over all radios. 2.4 GHz and 5 GHz are planned
 * separately: they cannot interfere.
 *
 * Channels: the country's list (packages/schema wifi-country-catalogue.ts), without DFS
 * channels (52–64, 100–144, the catalogue's radar bands) unless the radio allows DFS. The
 * radio's width is kept where the whole bonded block fits (5 GHz: the aligned 40/80 MHz
 * blocks, primary on the block's first channel; 2.4 GHz 40 MHz: the secondary channel above
 * the primary up to channel 7 and below from channel 8, as OpenWrt sets it); only when it fits
 * nowhere does the radio drop to the next narrower width (reason `widthReduced`). On 2.4 GHz at
 * 20 MHz the radios prefer the non-overlapping channels (1/6/11, or 1/5/9/13 where the country
 * allows 13): when choosing, a radio weighs them at PREFERRED_SET_BIAS (0.8, as hostapd's ACS
 * does) of their cost, so another channel is taken only when it interferes clearly less. The
 * scores reported are always the plain, unweighted ones.
 *
 * Search: radios are ordered by a generator seeded with `seed`; a greedy pass gives each the
 * channel it weighs least against the radios already placed, then improvement passes move any
 * radio that weighs less elsewhere against all the others, until a pass moves nothing (at most
 * `maxPasses`). The same passes also run from the current channels, and the plan is the lowest
 * total of the two results and (when every current channel is usable) the current channels.
 * Guarantees, for every seed (the bound the tests hold): the plan's total is no higher than the
 * current channels' total when every current channel is usable; and once `converged`, no single
 * radio can lower the total by moving alone, except a 2.4 GHz radio leaving the non-overlapping
 * set for less than the 20 % the preference asks. Different seeds may end in different plans
 * of that kind.
 *
 * Malformed input throws `WirelessPlanError` with one of WIRELESS_PLAN_ERROR_CODES; each radio
 * of the result carries reasons from WIRELESS_PLAN_REASON_CODES. The console maps both to i18n
 * keys; nothing here is shown text.
 *
 * `acsChannels` makes, on the same scans, the choice hostapd's ACS would make for each radio on
 * its own (see there), so the two can be scored side by side.
 */

export type PlanWidth = 20 | 40 | 80;
const PLAN_WIDTHS: readonly PlanWidth[] = [20, 40, 80];

/** One network an AP heard while scanning. */
export interface ScanNeighbour {
  bssid: string;
  /** Primary channel. */
  channel: number;
  width: number;
  signalDbm: number;
}

export interface PlanRadio {
  band: string;
  /** The BSSIDs this radio sends with (one per SSID): how other APs' scans name it. */
  bssids: readonly string[];
  channel: number;
  width: number;
  dfsAllowed: boolean;
  txPowerDbm: number;
}

export interface PlanAp {
  id: string;
  /** Country code of the catalogue (upper case). */
  country: string;
  radios: readonly PlanRadio[];
  /** Neighbours heard, by band ('2g', '5g'). */
  scan: Readonly<Record<string, readonly ScanNeighbour[]>>;
}

/**
 * Input refusals:
 * - `apIdInvalid`: an AP without a non-empty string id; `duplicateAp`: an id given twice;
 * - `unknownCountry`: a country code not in the catalogue;
 * - `unknownBand`: a radio or scan band other than '2g' / '5g'; `duplicateRadio`: two radios of
 *   one band on one AP; `radiosInvalid`: radios that are not a list of radios with a BSSID list;
 *   `scanInvalid`: a scan that is not a list of entries per band;
 * - `channelNotInCatalogue`: a radio's current channel the country does not allow on its band;
 * - `widthInvalid`: a radio width other than 20/40/80 (80 only on 5 GHz);
 * - `txPowerInvalid`: transmit power outside 1–30 dBm;
 * - `bssidInvalid`: a BSSID that is not a MAC address; `duplicateBssid`: one BSSID on two radios;
 * - `neighbourChannelInvalid`, `neighbourWidthInvalid`, `signalInvalid` (outside −120…0 dBm):
 *   a scan entry that cannot be on air; `tooManyNeighbours`: more than MAX_NEIGHBOURS_PER_BAND;
 * - `seedInvalid`: a seed that is not a safe integer; `noChannel`: no usable channel at all.
 */
export const WIRELESS_PLAN_ERROR_CODES = [
  'apIdInvalid',
  'duplicateAp',
  'unknownCountry',
  'unknownBand',
  'duplicateRadio',
  'radiosInvalid',
  'scanInvalid',
  'channelNotInCatalogue',
  'widthInvalid',
  'txPowerInvalid',
  'bssidInvalid',
  'duplicateBssid',
  'neighbourChannelInvalid',
  'neighbourWidthInvalid',
  'signalInvalid',
  'tooManyNeighbours',
  'seedInvalid',
  'noChannel',
] as const;
export type WirelessPlanErrorCode = (typeof WIRELESS_PLAN_ERROR_CODES)[number];

export class WirelessPlanError extends Error {
  constructor(
    readonly code: WirelessPlanErrorCode,
    readonly apId?: string,
    readonly detail?: string,
  ) {
    super(`${code}${apId === undefined ? '' : ` (AP ${apId})`}${detail ? `: ${detail}` : ''}`);
    this.name = 'WirelessPlanError';
  }
}

/**
 * Why a radio ended where it did:
 * - `unchanged`: its current channel is the plan's;
 * - `nothingHeard`: the scan found no network on this band;
 * - `dfsNotAllowed`: its current channel is a DFS channel and the radio does not allow DFS;
 * - `widthDoesNotFit`: its current channel cannot carry its width in this country;
 * - `widthReduced`: its width fits nowhere in this country; `width` is the one it got;
 * - `avoidsManagedAp` / `avoidsForeignNetwork`: it moved, and the strongest interferer on the
 *   old channel was that managed AP (`apId`) / that foreign network (`bssid`);
 * - `lessInterference`: it moved and hears less (no single interferer named);
 * - `lowersTotal`: it moved although it alone does not hear less: its neighbours gain more;
 * - `nonOverlappingSet`: it moved to a 2.4 GHz non-overlapping channel that it does not hear
 *   less on: the preference for the set (PREFERRED_SET_BIAS).
 */
export const WIRELESS_PLAN_REASON_CODES = [
  'unchanged',
  'nothingHeard',
  'dfsNotAllowed',
  'widthDoesNotFit',
  'widthReduced',
  'avoidsManagedAp',
  'avoidsForeignNetwork',
  'lessInterference',
  'lowersTotal',
  'nonOverlappingSet',
] as const;
export type WirelessPlanReasonCode = (typeof WIRELESS_PLAN_REASON_CODES)[number];

export interface PlanReason {
  code: WirelessPlanReasonCode;
  apId?: string;
  bssid?: string;
  width?: PlanWidth;
}

export interface PlannedRadio {
  band: WifiBand;
  channel: number;
  width: PlanWidth;
  previousChannel: number;
  previousWidth: PlanWidth;
  /** Interference this radio receives (mW), on the current channels and on the plan's. */
  scoreBefore: number;
  scoreAfter: number;
  reasons: PlanReason[];
}

export interface PlannedAp {
  id: string;
  radios: PlannedRadio[];
}

export interface ChannelPlan {
  /** `planner`: planChannels; `acs`: acsChannels. */
  method: 'planner' | 'acs';
  seed: number | null;
  /** Sum over all radios (mW). */
  scoreBefore: number;
  scoreAfter: number;
  /**
   * Improvement passes run. `converged`: the plan is where the passes settled; false when
   * `maxPasses` cut them short, or when the current channels were kept because every settled
   * result scored higher (which only the 2.4 GHz preference can cause).
   */
  passes: number;
  converged: boolean;
  /** In input order. */
  aps: PlannedAp[];
}

export interface PlanOptions {
  seed?: number;
  maxPasses?: number;
}

export const DEFAULT_PLAN_SEED = 1;
export const DEFAULT_MAX_PASSES = 50;
/** A scan listing more is refused: a device report that large is not a real neighbourhood. */
export const MAX_NEIGHBOURS_PER_BAND = 1024;
const SIGNAL_MIN_DBM = -120;
const SIGNAL_MAX_DBM = 0;
const BSSID = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;
/** A move must lower the cost by more than this share of it: float noise is not a gain. */
const RELATIVE_GAIN = 1e-9;
const ABSOLUTE_NOISE_MW = 1e-15;
/**
 * A 2.4 GHz 20 MHz radio weighs a non-overlapping channel at this share of its cost: another
 * channel must interfere at least 20 % less to be taken (hostapd's ACS_24GHZ_PREFER_1_6_11).
 */
export const PREFERRED_SET_BIAS = 0.8;

/** The radar bands: U-NII-2A 5250–5350 MHz (52–64) and U-NII-2C 5470–5725 MHz (100–144). */
export function isDfsChannel(band: WifiBand, channel: number): boolean {
  return band === '5g' && ((channel >= 52 && channel <= 64) || (channel >= 100 && channel <= 144));
}

/** Whether a scan may report this channel on this band (2.4 GHz 1–14, 5 GHz 36–144, 149–177). */
function isOnAirChannel(band: WifiBand, channel: number): boolean {
  if (!Number.isInteger(channel)) return false;
  if (band === '2g') return channel >= 1 && channel <= 14;
  if (channel >= 36 && channel <= 144) return channel % 4 === 0;
  return channel >= 149 && channel <= 177 && (channel - 149) % 4 === 0;
}

interface Span {
  low: number;
  high: number;
}

/**
 * The 20 MHz channels a radio at `channel` and `width` occupies. 5 GHz: the aligned block
 * holding the channel (40 MHz pairs from 36, 100, 149; 80 MHz quads likewise). 2.4 GHz 40 MHz:
 * the secondary channel 4 above up to channel 7, 4 below from channel 8.
 */
function blockChannels(band: WifiBand, channel: number, width: PlanWidth): number[] {
  const first = blockFirst(band, channel, width);
  return Array.from({ length: width / 20 }, (_, i) => first + 4 * i);
}

/** First 20 MHz channel of the block (see blockChannels). */
function blockFirst(band: WifiBand, channel: number, width: PlanWidth): number {
  if (width === 20) return channel;
  if (band === '2g') return channel <= 7 ? channel : channel - 4;
  const base = channel < 100 ? 36 : channel < 149 ? 100 : 149;
  const step = width / 5;
  return base + Math.floor((channel - base) / step) * step;
}

function spanOf(band: WifiBand, channel: number, width: PlanWidth): Span {
  const low = channelMhz(band, blockFirst(band, channel, width)) - 10;
  return { low, high: low + width };
}

/** Share of spectrum two spans have in common, over the narrower one: 1 co-channel, 0 apart. */
function overlap(a: Span, b: Span): number {
  const mhz = Math.min(a.high, b.high) - Math.max(a.low, b.low);
  return mhz <= 0 ? 0 : mhz / Math.min(a.high - a.low, b.high - b.low);
}

function milliwatts(dbm: number): number {
  return 10 ** (dbm / 10);
}

export interface RadioCandidate {
  channel: number;
  /** The 20 MHz channels it occupies. */
  block: number[];
  span: Span;
  /** In the 2.4 GHz non-overlapping set. */
  preferred: boolean;
}

/** The country's channels a radio may use: DFS channels only when it allows DFS. */
function usableChannels(band: WifiBand, allowed: readonly number[], dfsAllowed: boolean): number[] {
  return allowed.filter((c) => dfsAllowed || !isDfsChannel(band, c)).sort((a, b) => a - b);
}

/**
 * The channels a radio may take: `allowed` less DFS channels unless `dfsAllowed`, at the widest
 * width up to `width` whose block fits somewhere (5 GHz 40/80 MHz on the block's first channel).
 */
export function radioCandidates(
  band: WifiBand,
  allowed: readonly number[],
  width: PlanWidth,
  dfsAllowed: boolean,
): { width: PlanWidth; candidates: RadioCandidate[] } {
  const usable = usableChannels(band, allowed, dfsAllowed);
  const preferredSet = band === '2g' ? (usable.includes(13) ? [1, 5, 9, 13] : [1, 6, 11]) : [];
  for (const w of PLAN_WIDTHS.filter((x) => x <= width).reverse()) {
    const candidates: RadioCandidate[] = [];
    for (const channel of usable) {
      const block = blockChannels(band, channel, w);
      if (band === '5g' && block[0] !== channel) continue;
      if (!block.every((c) => usable.includes(c))) continue;
      candidates.push({ channel, block, span: spanOf(band, channel, w), preferred: w === 20 && preferredSet.includes(channel) });
    }
    if (candidates.length > 0) return { width: w, candidates };
  }
  return { width: 20, candidates: [] };
}

/** One scan entry, checked: where the network sits and how strong it arrives (mW). */
interface ScanEntry {
  bssid: string;
  span: Span;
  power: number;
}

/** A managed radio heard by another: index of that radio and the power received from it. */
interface Link {
  other: number;
  received: number;
  /** This radio's scan listed the other; false when `received` is estimated by reciprocity. */
  inScan: boolean;
  /** `received` plus what the other radio receives from this one: the pair's weight. */
  both: number;
}

interface RadioModel {
  apId: string;
  apIndex: number;
  band: WifiBand;
  input: PlanRadio;
  currentWidth: PlanWidth;
  currentSpan: Span;
  /** Index in `candidates` of the current channel's span, -1 when it is not usable. */
  currentIndex: number;
  width: PlanWidth;
  candidates: RadioCandidate[];
  /** Every channel it may use at 20 MHz: what an ACS survey covers. */
  usable: number[];
  foreign: ScanEntry[];
  /** Foreign interference at each candidate. */
  foreignCost: Float64Array;
  links: Link[];
  /** The scan found anything (other than the AP itself) on this band. */
  heardAny: boolean;
}

interface SiteModel {
  aps: readonly PlanAp[];
  radios: RadioModel[];
}

function fail(code: WirelessPlanErrorCode, apId?: string, detail?: string): never {
  throw new WirelessPlanError(code, apId, detail);
}

function checkWidth(band: WifiBand, width: number, code: WirelessPlanErrorCode, apId: string): PlanWidth {
  if (!(PLAN_WIDTHS as readonly number[]).includes(width) || (band === '2g' && width === 80)) fail(code, apId, `${band} ${width}`);
  return width as PlanWidth;
}

function normalisedBssid(value: unknown, apId: string): string {
  const bssid = typeof value === 'string' ? value.toLowerCase() : '';
  if (!BSSID.test(bssid)) fail('bssidInvalid', apId);
  return bssid;
}

function sameSpan(a: Span, b: Span): boolean {
  return a.low === b.low && a.high === b.high;
}

/** Checks the radios and builds each one's candidates; returns them and who owns each BSSID. */
function buildRadios(aps: readonly PlanAp[]): { radios: RadioModel[]; owner: Map<string, number> } {
  const seen = new Set<string>();
  const radios: RadioModel[] = [];
  const owner = new Map<string, number>();
  aps.forEach((ap, apIndex) => {
    if (typeof ap?.id !== 'string' || ap.id === '') fail('apIdInvalid');
    if (seen.has(ap.id)) fail('duplicateAp', ap.id);
    if (!Array.isArray(ap.radios) || ap.radios.some((r) => typeof r !== 'object' || r === null || !Array.isArray(r.bssids))) fail('radiosInvalid', ap.id);
    if (typeof ap.scan !== 'object' || ap.scan === null || Object.values(ap.scan).some((list) => !Array.isArray(list))) fail('scanInvalid', ap.id);
    seen.add(ap.id);
    const country = getCountry(ap.country);
    if (!country) fail('unknownCountry', ap.id, String(ap.country));
    const bands = new Set<string>();
    for (const radio of ap.radios) {
      const band = radio.band;
      if (!isWifiBand(band)) fail('unknownBand', ap.id, String(band));
      if (bands.has(band)) fail('duplicateRadio', ap.id, band);
      bands.add(band);
      const allowed = country.bands[WIFI_BANDS.indexOf(band)]!.channels.flatMap((o) => (typeof o.value === 'number' ? [o.value] : []));
      if (!allowed.includes(radio.channel)) fail('channelNotInCatalogue', ap.id, `${band} ${radio.channel}`);
      const currentWidth = checkWidth(band, radio.width, 'widthInvalid', ap.id);
      const tx = radio.txPowerDbm;
      if (typeof tx !== 'number' || !(tx >= TX_POWER_MIN_DBM && tx <= TX_POWER_MAX_DBM)) fail('txPowerInvalid', ap.id, String(tx));
      const dfsAllowed = radio.dfsAllowed === true;
      const { width, candidates } = radioCandidates(band, allowed, currentWidth, dfsAllowed);
      if (candidates.length === 0) fail('noChannel', ap.id, band);
      for (const raw of radio.bssids) {
        const bssid = normalisedBssid(raw, ap.id);
        if (owner.has(bssid)) fail('duplicateBssid', ap.id, bssid);
        owner.set(bssid, radios.length);
      }
      const currentSpan = spanOf(band, radio.channel, currentWidth);
      radios.push({
        apId: ap.id,
        apIndex,
        band,
        input: radio,
        currentWidth,
        currentSpan,
        currentIndex: width === currentWidth ? candidates.findIndex((c) => sameSpan(c.span, currentSpan)) : -1,
        width,
        candidates,
        usable: usableChannels(band, allowed, dfsAllowed),
        foreign: [],
        foreignCost: new Float64Array(candidates.length),
        links: [],
        heardAny: false,
      });
    }
  });
  return { radios, owner };
}

/** Checks every scan entry of an AP, on every band it reports (with a radio there or not). */
function checkedScan(ap: PlanAp): Map<WifiBand, ScanEntry[]> {
  const bands = new Map<WifiBand, ScanEntry[]>();
  for (const [band, neighbours] of Object.entries(ap.scan)) {
    if (!isWifiBand(band)) fail('unknownBand', ap.id, band);
    if (neighbours.length > MAX_NEIGHBOURS_PER_BAND) fail('tooManyNeighbours', ap.id, band);
    bands.set(
      band,
      neighbours.map((n) => {
        if (typeof n !== 'object' || n === null) fail('scanInvalid', ap.id, band);
        const bssid = normalisedBssid(n.bssid, ap.id);
        if (!isOnAirChannel(band, n.channel)) fail('neighbourChannelInvalid', ap.id, `${band} ${n.channel}`);
        const width = checkWidth(band, n.width, 'neighbourWidthInvalid', ap.id);
        if (typeof n.signalDbm !== 'number' || !(n.signalDbm >= SIGNAL_MIN_DBM && n.signalDbm <= SIGNAL_MAX_DBM)) {
          fail('signalInvalid', ap.id, String(n.signalDbm));
        }
        return { bssid, span: spanOf(band, n.channel, width), power: milliwatts(n.signalDbm) };
      }),
    );
  }
  return bands;
}

/** Sorts every radio's scan into foreign networks and the power it hears from each managed radio. */
function readScans(aps: readonly PlanAp[], radios: RadioModel[], owner: Map<string, number>): Map<number, number>[] {
  const scans = aps.map(checkedScan);
  return radios.map((radio) => {
    const managed = new Map<number, number>();
    for (const n of scans[radio.apIndex]!.get(radio.band) ?? []) {
      const other = owner.get(n.bssid);
      if (other !== undefined && radios[other]!.apId === radio.apId) continue; // the AP hears itself
      radio.heardAny = true;
      if (other !== undefined && radios[other]!.band === radio.band) {
        // Several BSSIDs of one managed radio are one transmitter: its strongest counts.
        managed.set(other, Math.max(managed.get(other) ?? 0, n.power));
      } else {
        radio.foreign.push(n);
      }
    }
    return managed;
  });
}

/** Checks the input and builds each radio's candidates, foreign cost and managed links. */
function buildModel(aps: readonly PlanAp[]): SiteModel {
  const { radios, owner } = buildRadios(aps);
  const heard = readScans(aps, radios, owner);
  // Power radio `to` receives from radio `from` when only `from` heard `to`: the path loss is
  // the same both ways, so the signal moves by the difference of their transmit powers.
  const received = (to: number, from: number): number =>
    heard[to]!.get(from) ?? heard[from]!.get(to)! * milliwatts(radios[from]!.input.txPowerDbm - radios[to]!.input.txPowerDbm);
  const partners = radios.map(() => new Set<number>());
  heard.forEach((map, r) => {
    for (const m of map.keys()) {
      partners[r]!.add(m);
      partners[m]!.add(r);
    }
  });
  radios.forEach((radio, index) => {
    for (let k = 0; k < radio.candidates.length; k++) {
      let cost = 0;
      for (const f of radio.foreign) cost += overlap(radio.candidates[k]!.span, f.span) * f.power;
      radio.foreignCost[k] = cost;
    }
    // In the radios' own order (AP id, band), so sums do not depend on the input's order.
    for (const other of [...partners[index]!].sort((a, b) => compareRadios(radios[a]!, radios[b]!))) {
      const inbound = received(index, other);
      radio.links.push({ other, received: inbound, inScan: heard[index]!.has(other), both: inbound + received(other, index) });
    }
  });
  return { aps, radios };
}

/** Interference each radio receives with the radios at these spans (mW). */
function receivedScores(model: SiteModel, spans: Span[]): number[] {
  return model.radios.map((radio, i) => {
    let score = 0;
    for (const f of radio.foreign) score += overlap(spans[i]!, f.span) * f.power;
    for (const link of radio.links) score += overlap(spans[i]!, spans[link.other]!) * link.received;
    return score;
  });
}

function spansOf(model: SiteModel, assignment: Int32Array): Span[] {
  return model.radios.map((r, i) => r.candidates[assignment[i]!]!.span);
}

function total(model: SiteModel, assignment: Int32Array): number {
  return receivedScores(model, spansOf(model, assignment)).reduce((a, b) => a + b, 0);
}

/**
 * -1 when `a` is clearly lower than `b`, 1 when clearly higher, 0 when they differ by float
 * noise only: a relative share, and an absolute floor far below the weakest contribution a scan
 * can make (−120 dBm at a quarter overlap is 2.5e-13 mW).
 */
function compareCost(a: number, b: number): number {
  const noise = Math.max(RELATIVE_GAIN * Math.max(Math.abs(a), Math.abs(b)), ABSOLUTE_NOISE_MW);
  return a < b - noise ? -1 : a > b + noise ? 1 : 0;
}

/** Assignment slot of a radio the greedy pass has not placed yet. */
const UNPLACED = -1;

/**
 * One search: the assignment, and for every radio the cost of each of its candidates against
 * the radios as placed (foreign interference plus both directions of every placed pair), kept
 * up to date as radios are placed and moved, so weighing a radio's candidates costs no more
 * than reading them.
 */
class Search {
  readonly assignment: Int32Array;
  private readonly cost: Float64Array[];

  constructor(
    private readonly model: SiteModel,
    private readonly rank: Int32Array[],
  ) {
    this.assignment = new Int32Array(model.radios.length).fill(UNPLACED);
    this.cost = model.radios.map((r) => Float64Array.from(r.foreignCost));
  }

  /** Puts radio `i` on candidate `k` (taking it off its current one first). */
  place(i: number, k: number): void {
    const from = this.assignment[i]!;
    if (from === k) return;
    const radios = this.model.radios;
    const fromSpan = from === UNPLACED ? null : radios[i]!.candidates[from]!.span;
    const toSpan = radios[i]!.candidates[k]!.span;
    for (const link of radios[i]!.links) {
      const partner = radios[link.other]!;
      const cost = this.cost[link.other]!;
      for (let q = 0; q < cost.length; q++) {
        const span = partner.candidates[q]!.span;
        cost[q]! += link.both * (overlap(span, toSpan) - (fromSpan ? overlap(span, fromSpan) : 0));
      }
    }
    this.assignment[i] = k;
  }

  /**
   * What radio `i` weighs at candidate `k`: its cost, times PREFERRED_SET_BIAS on a 2.4 GHz
   * non-overlapping channel (the score itself stays the plain cost).
   */
  weighed(i: number, k: number): number {
    return this.cost[i]![k]! * (this.model.radios[i]!.candidates[k]!.preferred ? PREFERRED_SET_BIAS : 1);
  }

  /** The best candidate of radio `i` against the others as placed. */
  best(i: number): number {
    const radio = this.model.radios[i]!;
    let best = 0;
    for (let k = 1; k < radio.candidates.length; k++) {
      const verdict = compareCost(this.weighed(i, k), this.weighed(i, best));
      if (verdict < 0 || (verdict === 0 && tieBreak(radio, this.rank[i]!, k, best) < 0)) best = k;
    }
    return best;
  }

  /**
   * Improvement passes in `order`: a radio moves when it weighs less elsewhere, or as much on a
   * non-overlapping channel when it is off the set (a move that can never be undone by a tie).
   */
  improve(order: readonly number[], maxPasses: number): { passes: number; converged: boolean } {
    for (let pass = 1; pass <= maxPasses; pass++) {
      let moved = false;
      for (const i of order) {
        const now = this.assignment[i]!;
        const best = this.best(i);
        if (best === now) continue;
        const verdict = compareCost(this.weighed(i, best), this.weighed(i, now));
        const candidates = this.model.radios[i]!.candidates;
        if (verdict < 0 || (verdict === 0 && candidates[best]!.preferred && !candidates[now]!.preferred)) {
          this.place(i, best);
          moved = true;
        }
      }
      if (!moved) return { passes: pass, converged: true };
    }
    return { passes: maxPasses, converged: false };
  }
}

/** Tie order: the non-overlapping set, then the current channel, then the seeded rank. */
function tieBreak(radio: RadioModel, rank: Int32Array, a: number, b: number): number {
  const pa = radio.candidates[a]!.preferred;
  const pb = radio.candidates[b]!.preferred;
  if (pa !== pb) return pa ? -1 : 1;
  if ((a === radio.currentIndex) !== (b === radio.currentIndex)) return a === radio.currentIndex ? -1 : 1;
  return rank[a]! - rank[b]!;
}

/** The radios' own order: by AP id, then band. */
function compareRadios(a: RadioModel, b: RadioModel): number {
  return a.apId < b.apId ? -1 : a.apId > b.apId ? 1 : WIFI_BANDS.indexOf(a.band) - WIFI_BANDS.indexOf(b.band);
}

/** The seeded order of the radios and, per radio, the seeded rank of its candidates. */
function seededOrder(model: SiteModel, seed: number): { order: number[]; rank: Int32Array[] } {
  const random = seededRandom(seed);
  const shuffle = (items: number[]): number[] => {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  };
  // Sorted first, so the plan does not depend on the order the APs were listed in.
  const sorted = model.radios.map((_, i) => i).sort((a, b) => compareRadios(model.radios[a]!, model.radios[b]!));
  const order = shuffle([...sorted]);
  // Drawn in the sorted order too: a radio's ranks must not depend on its place in the input.
  const rank: Int32Array[] = [];
  for (const i of sorted) {
    const ranks = new Int32Array(model.radios[i]!.candidates.length);
    shuffle(Array.from(ranks, (_, k) => k)).forEach((k, position) => (ranks[k] = position));
    rank[i] = ranks;
  }
  return { order, rank };
}

/** The channel plan of these APs (see the module comment). */
export function planChannels(aps: readonly PlanAp[], options: PlanOptions = {}): ChannelPlan {
  const seed = options.seed ?? DEFAULT_PLAN_SEED;
  if (!Number.isSafeInteger(seed)) fail('seedInvalid', undefined, String(seed));
  const maxPasses = Math.max(1, Math.floor(options.maxPasses ?? DEFAULT_MAX_PASSES));
  const model = buildModel(aps);
  const { order, rank } = seededOrder(model, seed);

  const greedy = new Search(model, rank);
  for (const i of order) greedy.place(i, greedy.best(i));
  // The current channels where usable; a radio that has to move starts where greedy put it.
  const current = new Search(model, rank);
  model.radios.forEach((r, i) => current.place(i, r.currentIndex >= 0 ? r.currentIndex : greedy.assignment[i]!));
  const unchanged = Int32Array.from(current.assignment);
  const runs = [
    { assignment: greedy.assignment, ...greedy.improve(order, maxPasses) },
    { assignment: current.assignment, ...current.improve(order, maxPasses) },
  ];
  // The lower total wins; on a tie, the one that changes fewer radios, then the greedy one.
  const changes = (a: Int32Array) => a.reduce((n, k, i) => n + (k === model.radios[i]!.currentIndex ? 0 : 1), 0);
  const scored = runs.map((run) => ({ ...run, total: total(model, run.assignment), changes: changes(run.assignment) }));
  let chosen = scored.reduce((best, run) => {
    const verdict = compareCost(run.total, best.total);
    return verdict < 0 || (verdict === 0 && run.changes < best.changes) ? run : best;
  });
  // Never worse than staying, when every current channel is usable: the preference for the
  // 2.4 GHz set is the one thing that can make the passes end higher.
  if (model.radios.every((r) => r.currentIndex >= 0) && compareCost(total(model, unchanged), chosen.total) < 0) {
    chosen = { assignment: unchanged, passes: 0, converged: false, total: total(model, unchanged), changes: 0 };
  }
  return buildPlan(model, chosen.assignment, {
    method: 'planner',
    seed,
    passes: runs.reduce((n, run) => n + run.passes, 0),
    converged: chosen.converged,
  });
}

/** Total interference (mW) of the APs on their current channels: a plan's `scoreBefore`. */
export function siteScore(aps: readonly PlanAp[]): number {
  const model = buildModel(aps);
  return receivedScores(model, model.radios.map((r) => r.currentSpan)).reduce((a, b) => a + b, 0);
}

/** The strongest single interferer of radio `i` on its current channel, as a reason. */
function strongestInterferer(model: SiteModel, i: number, spans: Span[]): PlanReason | null {
  const radio = model.radios[i]!;
  let best: PlanReason | null = null;
  let bestPower = 0;
  for (const f of radio.foreign) {
    const p = overlap(spans[i]!, f.span) * f.power;
    if (p > bestPower) [best, bestPower] = [{ code: 'avoidsForeignNetwork', bssid: f.bssid }, p];
  }
  for (const link of radio.links) {
    const p = overlap(spans[i]!, spans[link.other]!) * link.received;
    if (p > bestPower) [best, bestPower] = [{ code: 'avoidsManagedAp', apId: model.radios[link.other]!.apId }, p];
  }
  return best;
}

function reasonsFor(model: SiteModel, i: number, moved: boolean, preferred: boolean, before: number[], after: number[], beforeSpans: Span[]): PlanReason[] {
  const radio = model.radios[i]!;
  const reasons: PlanReason[] = [];
  if (!radio.heardAny) reasons.push({ code: 'nothingHeard' });
  if (isDfsChannel(radio.band, radio.input.channel) && !radio.input.dfsAllowed) reasons.push({ code: 'dfsNotAllowed' });
  else if (radio.currentIndex < 0 && radio.width === radio.currentWidth) reasons.push({ code: 'widthDoesNotFit' });
  if (radio.width !== radio.currentWidth) reasons.push({ code: 'widthReduced', width: radio.width });
  if (!moved) reasons.push({ code: 'unchanged' });
  else if (compareCost(after[i]!, before[i]!) < 0) reasons.push(strongestInterferer(model, i, beforeSpans) ?? { code: 'lessInterference' });
  else if (preferred) reasons.push({ code: 'nonOverlappingSet' });
  else reasons.push({ code: 'lowersTotal' });
  return reasons;
}

function buildPlan(model: SiteModel, assignment: Int32Array, meta: Pick<ChannelPlan, 'method' | 'seed' | 'passes' | 'converged'>): ChannelPlan {
  const beforeSpans = model.radios.map((r) => r.currentSpan);
  const before = receivedScores(model, beforeSpans);
  const after = receivedScores(model, spansOf(model, assignment));
  const planned = model.aps.map((ap): PlannedAp => ({ id: ap.id, radios: [] }));
  model.radios.forEach((radio, i) => {
    const candidate = radio.candidates[assignment[i]!]!;
    // The same block as now keeps the radio's own primary channel.
    const channel = assignment[i] === radio.currentIndex ? radio.input.channel : candidate.channel;
    const moved = channel !== radio.input.channel || radio.width !== radio.currentWidth;
    planned[radio.apIndex]!.radios.push({
      band: radio.band,
      channel,
      width: radio.width,
      previousChannel: radio.input.channel,
      previousWidth: radio.currentWidth,
      scoreBefore: before[i]!,
      scoreAfter: after[i]!,
      reasons: reasonsFor(model, i, moved, candidate.preferred, before, after, beforeSpans),
    });
  });
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return { ...meta, scoreBefore: sum(before), scoreAfter: sum(after), aps: planned };
}

// hostapd's survey-based ACS (src/ap/acs.c) gives each 20 MHz channel the interference factor
//   10^(nf/5) + (busy − tx) / (active − tx) · 2^(10^(nf/10) − 10^(min_nf/10))
// from the driver's channel survey (busy and active time, noise floor nf, lowest noise floor
// of the band min_nf). A channel spec (primary and width) scores the weighted mean of the
// factors of the 20 MHz channels it covers (weight 1) and, on 2.4 GHz, of the channels 5 MHz
// (0.85) and 10 MHz (0.55) on either side of each; on 2.4 GHz, 1/6/11 are multiplied by 0.8.
// The lowest wins. Each radio decides alone, on the air as it is at the time.
//
// We have neighbour scans, not surveys, so the survey is stood in for from them: a network
// heard at or above the preamble-detect level (−82 dBm) keeps each channel its span covers
// busy ACS_BSS_AIRTIME of the time, times the share of that channel it covers (at most all of
// the time); a weaker one is energy below that level and raises the channel's noise floor
// above the thermal floor instead. A scan says nothing of our own sending, so tx = 0.
const ACS_ADJ_WEIGHT = 0.85;
const ACS_NEXT_ADJ_WEIGHT = 0.55;
const ACS_24GHZ_PREFER_1_6_11 = 0.8;
const ACS_BSS_AIRTIME = 0.1;
const ACS_PREAMBLE_DETECT_MW = milliwatts(-82);
const THERMAL_FLOOR_MW = milliwatts(-95);
const ACS_ADJACENT: ReadonlyArray<readonly [offset: number, weight: number]> = [
  [-1, ACS_ADJ_WEIGHT],
  [1, ACS_ADJ_WEIGHT],
  [-2, ACS_NEXT_ADJ_WEIGHT],
  [2, ACS_NEXT_ADJ_WEIGHT],
];

/** The stand-in survey's interference factor of each channel the radio may use. */
function acsFactors(radio: RadioModel, heard: readonly ScanEntry[]): Map<number, number> {
  const survey = radio.usable.map((channel) => {
    const span = spanOf(radio.band, channel, 20);
    let busy = 0;
    let noiseMw = THERMAL_FLOOR_MW;
    for (const n of heard) {
      const share = Math.max(0, Math.min(span.high, n.span.high) - Math.max(span.low, n.span.low)) / 20;
      if (share === 0) continue;
      if (n.power >= ACS_PREAMBLE_DETECT_MW) busy += share * ACS_BSS_AIRTIME;
      else noiseMw += share * n.power;
    }
    return { channel, busy: Math.min(1, busy), nf: 10 * Math.log10(noiseMw) };
  });
  const minNf = Math.min(...survey.map((s) => s.nf));
  return new Map(survey.map((s) => [s.channel, 10 ** (s.nf / 5) + s.busy * 2 ** (10 ** (s.nf / 10) - 10 ** (minNf / 10))]));
}

/** hostapd's total interference of one channel spec: weighted mean, then the 1/6/11 bias. */
function acsSpecFactor(radio: RadioModel, candidate: RadioCandidate, factors: Map<number, number>): number {
  let factor = 0;
  let weight = 0;
  for (const channel of candidate.block) {
    factor += factors.get(channel)!;
    weight += 1;
    if (radio.band !== '2g') continue;
    for (const [offset, w] of ACS_ADJACENT) {
      const adjacent = factors.get(channel + offset);
      if (adjacent === undefined) continue;
      factor += w * adjacent;
      weight += w;
    }
  }
  factor /= weight;
  return radio.band === '2g' && [1, 6, 11].includes(candidate.channel) ? factor * ACS_24GHZ_PREFER_1_6_11 : factor;
}

/**
 * What hostapd's survey-based ACS would pick for each radio on its own, from the same scans
 * (managed neighbours at their current channels: the air a survey would see), scored with the
 * planner's model. Same candidates as the planner: country, DFS and width rules.
 */
export function acsChannels(aps: readonly PlanAp[]): ChannelPlan {
  const model = buildModel(aps);
  const assignment = Int32Array.from(model.radios, (radio) => {
    const heard: ScanEntry[] = [
      ...radio.foreign,
      ...radio.links.filter((l) => l.inScan).map((l) => ({ bssid: '', span: model.radios[l.other]!.currentSpan, power: l.received })),
    ];
    const factors = acsFactors(radio, heard);
    let best = 0;
    let bestFactor = Infinity;
    radio.candidates.forEach((candidate, k) => {
      const factor = acsSpecFactor(radio, candidate, factors);
      if (factor < bestFactor) [best, bestFactor] = [k, factor];
    });
    return best;
  });
  return buildPlan(model, assignment, { method: 'acs', seed: null, passes: 0, converged: true });
}
