/** Flow-control classes and operator groups (spec §9). */

/** Traffic priority classes, highest first. */
export const PRIORITY_CLASSES = ['Priority', 'Express', 'Normal', 'Bulk'] as const;
export type PriorityClass = (typeof PRIORITY_CLASSES)[number];

/** ISP groups of the operator list: built-in carriers, three custom groups, and none. */
export const ISP_GROUPS = [
  'default',
  'telecom',
  'mobile',
  'unicom',
  'education',
  'custom1',
  'custom2',
  'custom3',
  'none',
] as const;
export type IspGroup = (typeof ISP_GROUPS)[number];
