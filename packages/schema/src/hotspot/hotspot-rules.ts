import { NAME_EXISTS_MESSAGE, UNKNOWN_INTERFACE_MESSAGE, type Candidate, type FieldErrorMap, type RuleVerdict } from '../network/network-rules.js';
import { HOTSPOT_MESSAGES, HOTSPOT_MSG } from './hotspot-fields.js';
import { listValueKey, type HotspotListEntry } from './hotspot-lists.js';
import type { HotspotLocalNotice } from './hotspot-notices.js';
import type { HotspotPlan } from './hotspot-plan.js';
import type { HotspotPortal } from './hotspot-portal.js';
import { batchUserNames, type HotspotUser, type HotspotUserBatch } from './hotspot-user.js';
import type { VoucherBatchInput } from './hotspot-voucher.js';
import type { HotspotZone } from './hotspot-zone.js';

/**
 * Hotspot rules that need other stored records (spec §3, §5). Pure functions of the candidate
 * and the stored rows, as the Network rules are: a write rule answers field errors, a delete
 * rule one message key, `undefined` accepts. On update the candidate carries its `id`.
 */

/** What the rules read. Users only need their names and plans. */
export interface HotspotRows {
  hotspotZone?: readonly HotspotZone[];
  hotspotPlan?: readonly HotspotPlan[];
  hotspotUser?: ReadonlyArray<Pick<HotspotUser, 'id' | 'username' | 'model'>>;
  hotspotWhitelist?: readonly HotspotListEntry[];
  hotspotBlacklist?: readonly HotspotListEntry[];
  /** Names of the configured interfaces and VLANs; absent = not checked. */
  interfaces?: readonly string[];
  /** Plans named by voucher batches that still hold usable vouchers. */
  voucherPlans?: readonly string[];
}

class Verdict {
  readonly errors: FieldErrorMap = {};
  add(field: string, message: string): void {
    this.errors[field] ??= message;
  }
  result(): FieldErrorMap | undefined {
    return Object.keys(this.errors).length ? this.errors : undefined;
  }
}

function others<T extends { id: string }>(rows: readonly T[] | undefined, candidate: { id?: string }): T[] {
  return (rows ?? []).filter((row) => candidate.id === undefined || row.id !== candidate.id);
}

function planKnown(rows: HotspotRows, name: string): boolean {
  return (rows.hotspotPlan ?? []).some((plan) => plan.name === name);
}

/** hotspotZone add/update: one zone per interface, unique names, an interface that exists. */
export function checkZoneWrite(candidate: Candidate<HotspotZone>, rows: HotspotRows): RuleVerdict {
  const verdict = new Verdict();
  const rest = others(rows.hotspotZone, candidate);
  if (rest.some((zone) => zone.name === candidate.name)) verdict.add('name', NAME_EXISTS_MESSAGE);
  if (rest.some((zone) => zone.ifname === candidate.ifname)) verdict.add('ifname', HOTSPOT_MESSAGES.zoneInterface);
  if (rows.interfaces && !rows.interfaces.includes(candidate.ifname)) verdict.add('ifname', UNKNOWN_INTERFACE_MESSAGE);
  return verdict.result();
}

/** hotspotPlan add/update: unique name; a switch-plan target that exists. */
export function checkPlanWrite(candidate: Candidate<HotspotPlan>, rows: HotspotRows): RuleVerdict {
  const verdict = new Verdict();
  const rest = others(rows.hotspotPlan, candidate);
  if (rest.some((plan) => plan.name === candidate.name)) verdict.add('name', NAME_EXISTS_MESSAGE);
  if (candidate.expire_action === 'switch' && candidate.switch_plan !== '') {
    if (candidate.switch_plan === candidate.name) verdict.add('switch_plan', HOTSPOT_MESSAGES.selfSwitch);
    else if (!rest.some((plan) => plan.name === candidate.switch_plan)) verdict.add('switch_plan', HOTSPOT_MESSAGES.unknownPlan);
  }
  return verdict.result();
}

/** hotspotPlan delete: a plan that users, other plans or unused vouchers refer to stays. */
export function checkPlanDelete(deleted: readonly HotspotPlan[], rows: HotspotRows): string | undefined {
  const names = new Set(deleted.map((plan) => plan.name));
  const ids = new Set(deleted.map((plan) => plan.id));
  if ((rows.hotspotUser ?? []).some((user) => names.has(user.model))) return HOTSPOT_MSG.planInUse;
  const survivors = (rows.hotspotPlan ?? []).filter((plan) => !ids.has(plan.id));
  if (survivors.some((plan) => plan.expire_action === 'switch' && names.has(plan.switch_plan))) return HOTSPOT_MSG.planInUse;
  if ((rows.voucherPlans ?? []).some((name) => names.has(name))) return HOTSPOT_MSG.planInUse;
  return undefined;
}

/** hotspotUser add/update: user names are unique whatever their case; the plan exists. */
export function checkUserWrite(candidate: Candidate<Pick<HotspotUser, 'id' | 'username' | 'model'>>, rows: HotspotRows): RuleVerdict {
  const verdict = new Verdict();
  const name = candidate.username.toLowerCase();
  if (others(rows.hotspotUser, candidate).some((user) => user.username.toLowerCase() === name)) verdict.add('username', NAME_EXISTS_MESSAGE);
  if (candidate.model !== '' && !planKnown(rows, candidate.model)) verdict.add('model', HOTSPOT_MESSAGES.unknownPlan);
  return verdict.result();
}

/** hotspotUserBatch: none of the names it creates may exist (spec §8 "user or prefix already exists"). */
export function checkUserBatch(batch: Pick<HotspotUserBatch, 'prefix' | 'count' | 'model' | 'password'>, rows: HotspotRows): RuleVerdict {
  const verdict = new Verdict();
  if (!batch.password) verdict.add('password', 'validation.required');
  const taken = new Set((rows.hotspotUser ?? []).map((user) => user.username.toLowerCase()));
  if (batchUserNames(batch.prefix, batch.count).some((name) => taken.has(name.toLowerCase()))) {
    verdict.add('prefix', HOTSPOT_MESSAGES.userExists);
  }
  if (batch.model !== '' && !planKnown(rows, batch.model)) verdict.add('model', HOTSPOT_MESSAGES.unknownPlan);
  return verdict.result();
}

/**
 * White or black list add/update: no entry twice in one list, and no entry on both lists
 * (it would be let through and refused at once).
 */
export function checkListWrite(
  list: 'hotspotWhitelist' | 'hotspotBlacklist',
  candidate: Candidate<HotspotListEntry>,
  rows: HotspotRows,
): RuleVerdict {
  const key = listValueKey(candidate.type, candidate.value);
  const otherList = list === 'hotspotWhitelist' ? rows.hotspotBlacklist : rows.hotspotWhitelist;
  if (others(rows[list], candidate).some((entry) => listValueKey(entry.type, entry.value) === key)) {
    return { value: HOTSPOT_MESSAGES.duplicate };
  }
  if ((otherList ?? []).some((entry) => listValueKey(entry.type, entry.value) === key)) return { value: HOTSPOT_MESSAGES.otherList };
  return undefined;
}

/** hotspotPortal update: the shared-password method needs a password (stored or given). */
export function checkPortalWrite(candidate: Pick<HotspotPortal, 'methods' | 'password'>): RuleVerdict {
  if (candidate.methods.includes('password') && !candidate.password) return { password: 'validation.required' };
  return undefined;
}

/** hotspotLocalNotice update: the interfaces it names exist. */
export function checkLocalNoticeWrite(candidate: Pick<HotspotLocalNotice, 'interfaces'>, rows: HotspotRows): RuleVerdict {
  if (rows.interfaces && candidate.interfaces.some((name) => !rows.interfaces!.includes(name))) {
    return { interfaces: UNKNOWN_INTERFACE_MESSAGE };
  }
  return undefined;
}

/** A voucher batch names an existing plan, if any. */
export function checkVoucherBatch(batch: Pick<VoucherBatchInput, 'plan'>, rows: HotspotRows): RuleVerdict {
  if (batch.plan !== '' && !planKnown(rows, batch.plan)) return { plan: HOTSPOT_MESSAGES.unknownPlan };
  return undefined;
}
