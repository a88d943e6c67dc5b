import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { stringBase } from '../common/field-base.js';
import { isPrintableAscii, isSafeText } from '../common/text-guard.js';
import { isPlainHttpUrl } from './hotspot-wifidog.js';

/**
 * Social login (spec §1, §8) for zones of auth model `social`: an OpenID Connect provider the
 * client signs in at. provider names the callback route `/auth/<provider>/callback`; issuer is
 * the provider's issuer URL (its discovery document is read from there); client_id and
 * client_secret are those registered with the provider (the secret is never read back); scope
 * the space-separated scopes asked for (openid always among them).
 */
const PROVIDER = /^[a-z0-9][a-z0-9-]{0,31}$/;
const CLIENT_ID = /^[\x21-\x7e]{1,255}$/;
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

export function isScopeList(text: string): boolean {
  const scopes = text.split(' ');
  return text.length <= 255 && scopes.includes('openid') && scopes.every((s) => SCOPE.test(s));
}

export const hotspotSocial = defineEntity({
  name: 'hotspotSocial',
  path: 'auth/social',
  module: 'social',
  route: '/hotspot/social',
  kind: 'singleton',
  schema: z.object({
    provider: stringBase()
      .refine((v) => PROVIDER.test(v), { error: 'validation.social.provider' })
      .default('oidc'),
    issuer: stringBase()
      .refine((v) => v === '' || (isPlainHttpUrl(v) && !v.includes('?') && !v.includes('#')), { error: 'validation.url' })
      .default(''),
    client_id: stringBase()
      .refine((v) => v === '' || CLIENT_ID.test(v), { error: 'validation.social.clientId' })
      .default(''),
    client_secret: stringBase()
      .refine((v) => v === '' || (v.length <= 255 && isSafeText(v) && isPrintableAscii(v)), { error: 'validation.social.secret' })
      .default(''),
    scope: stringBase()
      .refine((v) => isScopeList(v), { error: 'validation.social.scope' })
      .default('openid profile email'),
  }),
  writeOnly: ['client_secret'],
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [{ name: 'provider' }, { name: 'issuer' }, { name: 'client_id' }, { name: 'client_secret', widget: 'password', keepWhenEmpty: true }, { name: 'scope' }],
      },
    ],
  },
});
export type HotspotSocial = z.infer<typeof hotspotSocial.schema>;
