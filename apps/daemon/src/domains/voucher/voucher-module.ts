import { defineDomain } from '../../config/domain-module.js';
import { voucherBackup } from './voucher-backup.js';
import { registerVoucherRoutes } from './voucher-routes.js';

/** Voucher batches: codes made, printed, listed and redeemed; carried by the backup with their key. */
export const voucherModule = defineDomain({ name: 'voucher', pages: ['voucher', 'voucherbatch'], backup: voucherBackup, register: registerVoucherRoutes });
