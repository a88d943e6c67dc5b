/** Capability tokens of the capability string (spec, general facts). */
export const CAPABILITIES = [
  'gateway',
  'vlan',
  'nas',
  'iptv',
  'cmcc',
  'wifidog',
  'phtunnel',
  'wifi_cpe',
  'hidden_language',
  'qrcode',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export const DEFAULT_CAPABILITY_STRING = 'gateway nas vlan qrcode cmcc wifidog phtunnel';

/** A child route of a section as declared in the route map (spec §2). */
export interface MenuChildDef {
  /** Path relative to the section, e.g. `/interface`. */
  path: string;
  /** Module name: menu key, ACL key, i18n label `menu.<module>`. */
  module: string;
  /** Sub-routes below the child, e.g. `['add', 'edit']` -> `/netconf/dhcpserver/add`. */
  sub?: ReadonlyArray<string | { path: string; requires?: Capability }>;
  /** Present only when the capability is on. */
  requires?: Capability;
  /** Absent when the capability is on. */
  excludedBy?: Capability;
  /** Routed but not listed in the menu. */
  hidden?: boolean;
}

export interface MenuSectionDef {
  /** e.g. `/netconf`; the dashboard section is `/`. */
  path: string;
  module: string;
  children: ReadonlyArray<MenuChildDef>;
  requires?: Capability;
  excludedBy?: Capability;
}

/** What the server sends: only what this device, account and module list allow. */
export interface MenuItem {
  /** Full path, e.g. `/netconf/interface`. */
  path: string;
  module: string;
  /** i18n key. */
  label: string;
  hidden: boolean;
  /** Full paths of the sub-routes, e.g. `/netconf/dhcpserver/add`. */
  routes: string[];
  /** The account's permission on this page. */
  permission: 'readonly' | 'access' | 'modify';
}

export interface MenuSection {
  path: string;
  module: string;
  label: string;
  children: MenuItem[];
}
