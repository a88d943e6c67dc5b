export * from './text-width.js';
export * from './unit-format.js';
export * from './duration-format.js';
export * from './capability-parse.js';
export * from './language-codes.js';
