export * from './behaviour-audit.js';
