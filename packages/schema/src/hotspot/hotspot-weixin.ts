import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { stringBase } from '../common/field-base.js';
import { isPrintableAscii, isSafeText } from '../common/text-guard.js';

/**
 * WeChat Wi-Fi (spec §3 section weixin: appid, shopid, key) for zones of auth model `weixin`:
 * the shop's app id, shop id and secret key from the WeChat "connect Wi-Fi" console (the key
 * signs the auth request; never read back), and the SSID registered for the shop, which the
 * signature covers.
 */
const APP_ID = /^[A-Za-z0-9_-]{1,64}$/;
const SHOP_ID = /^[0-9]{1,20}$/;

export const hotspotWeixin = defineEntity({
  name: 'hotspotWeixin',
  path: 'auth/weixin',
  module: 'weixin',
  route: '/hotspot/weixin',
  kind: 'singleton',
  schema: z.object({
    appid: stringBase()
      .refine((v) => v === '' || APP_ID.test(v), { error: 'validation.weixin.appid' })
      .default(''),
    shopid: stringBase()
      .refine((v) => v === '' || SHOP_ID.test(v), { error: 'validation.weixin.shopid' })
      .default(''),
    key: stringBase()
      .refine((v) => v === '' || (v.length <= 128 && isSafeText(v) && isPrintableAscii(v)), { error: 'validation.weixin.key' })
      .default(''),
    ssid: stringBase()
      .refine((v) => v === '' || (new TextEncoder().encode(v).length <= 32 && isSafeText(v) && !/[&#?=%]/.test(v)), { error: 'validation.weixin.ssid' })
      .default(''),
  }),
  writeOnly: ['key'],
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [{ name: 'appid' }, { name: 'shopid' }, { name: 'key', widget: 'password', keepWhenEmpty: true }, { name: 'ssid' }],
      },
    ],
  },
});
export type HotspotWeixin = z.infer<typeof hotspotWeixin.schema>;
