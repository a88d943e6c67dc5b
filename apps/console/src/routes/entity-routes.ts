/**
 * Console routes of the entities declared in @portico/schema (ENTITIES, `route`). Kept as a
 * plain list so the first load does not carry zod and every entity schema; the entity itself
 * is resolved inside the lazily loaded page chunk. A test keeps this list equal to ENTITIES.
 */
export const ENTITY_ROUTES: readonly string[] = [
  '/system/usermanagement',
  '/netconf/interface',
  '/netconf/dhcpserver',
  '/netconf/dhcpstatic',
  '/netconf/staticroute',
  '/netconf/arpbind',
  '/netconf/vlan',
  '/netconf/multiwan',
  '/netconf/portattribute',
  '/netconf/vpnclient',
];
