/** Vouchers' public face: the store other domains read and redeem through, and its key. */
export * from './voucher-codes.js';
export * from './voucher-routes.js';
export * from './voucher-store.js';
