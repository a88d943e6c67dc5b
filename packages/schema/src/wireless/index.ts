export * from './wireless-group.js';
export * from './wireless-ssid.js';
export * from './wireless-mac-filter.js';
export * from './cpe-profile.js';
export * from './wireless-api.js';
