export * from './ucentral-jsonrpc.js';
export * from './ucentral-config.js';
export * from './ucentral-state.js';
export * from './ucentral-messages.js';
export * from './ucentral-link.js';
