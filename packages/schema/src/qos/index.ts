export * from './qos-fields.js';
export * from './qos-base.js';
export * from './qos-bandwidth-rule.js';
export * from './qos-class-rule.js';
export * from './qos-load-balance.js';
export * from './qos-rules.js';
export * from './qos-flow-chart.js';
