export * from './firewall-limits.js';
export * from './hotspot-defaults.js';
export * from './vpn-defaults.js';
export * from './wireless-defaults.js';
export * from './qos-defaults.js';
export * from './chart-ranges.js';
export * from './security-defaults.js';
export * from './system-defaults.js';
