export * from './health-types.js';
export * from './security-events.js';
export * from './email-notice.js';
