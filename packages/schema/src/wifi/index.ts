export * from './wifi-channels.js';
export * from './wifi-country-names.js';
export * from './wifi-country-catalogue.js';
export * from './wifi-tx-power.js';
export * from './wifi-mac-generator.js';
export * from './phone-country-codes.js';
export * from './wifi-fields.js';
