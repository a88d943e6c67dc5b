import { defineDomain } from '../../config/domain-module.js';
import { registerVoucherRoutes } from './voucher-routes.js';

/** Voucher batches: codes made, printed, listed and redeemed. */
export const voucherModule = defineDomain({ name: 'voucher', pages: ['voucher', 'voucherbatch'], register: registerVoucherRoutes });
