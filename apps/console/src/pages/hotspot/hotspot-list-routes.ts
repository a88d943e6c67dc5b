/**
 * Console routes of the white and black lists (spec §2): each list, and one sub-route per
 * entry type that shows and edits entries of that type only. Plain strings, so the route
 * registry can name these pages without loading the schemas.
 */

export const HOTSPOT_LIST_ROUTES = ['/hotspot/whitelistconfig', '/hotspot/blacklistconfig'] as const;

/** Sub-route of each entry type; domain entries are stored with type `url`. */
export const LIST_TYPE_SEGMENTS = [
  { segment: 'macedit', type: 'mac' },
  { segment: 'ipedit', type: 'ip' },
  { segment: 'domainedit', type: 'url' },
] as const;

export type ListTypeSegment = (typeof LIST_TYPE_SEGMENTS)[number];

/** The list pages and their typed sub-routes, in menu order. */
export function hotspotListPaths(): string[] {
  return HOTSPOT_LIST_ROUTES.flatMap((route) => [route, ...LIST_TYPE_SEGMENTS.map((s) => `${route}/${s.segment}`)]);
}
