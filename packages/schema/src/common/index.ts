export * from './account-fields.js';
export * from './access-ip.js';
