import { integerInRange } from './field-base.js';

/** VLAN tags (spec §5): 1-4094; 0 and 4095 are reserved by 802.1Q. */
export const VLAN_TAG_MIN = 1;
export const VLAN_TAG_MAX = 4094;
/** IPTV LAN tag default (spec §5). */
export const IPTV_LAN_TAG_DEFAULT = 100;
/** MTU and MRU (spec §5): 46-1500, default 1450. */
export const MTU_MIN = 46;
export const MTU_MAX = 1500;
export const MTU_DEFAULT = 1450;

export function vlanTagField() {
  return integerInRange(VLAN_TAG_MIN, VLAN_TAG_MAX, 'validation.vlan.range');
}

/** WAN (and IPTV WAN) tag: 0 means untagged. */
export function wanTagField() {
  return integerInRange(0, VLAN_TAG_MAX, 'validation.wanTag.range');
}

/** IPTV LAN tag; that it must not equal a VLAN id is checked by the IPTV entity. */
export function iptvLanTagField() {
  return integerInRange(VLAN_TAG_MIN, VLAN_TAG_MAX, 'validation.lanTag.range').default(IPTV_LAN_TAG_DEFAULT);
}

export function mtuField() {
  return integerInRange(MTU_MIN, MTU_MAX, 'validation.mtu.range').default(MTU_DEFAULT);
}

export function mruField() {
  return integerInRange(MTU_MIN, MTU_MAX, 'validation.mru.range').default(MTU_DEFAULT);
}

/** Messages of the cross-record tag rules (spec §5, §8) that entities raise. */
export const VLAN_IN_USE_MESSAGE = 'validation.vlan.inUse';
export const LAN_TAG_CONFLICT_MESSAGE = 'validation.lanTag.conflict';
