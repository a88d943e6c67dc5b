import { contribute, defineDomain } from '../../config/domain-module.js';
import { RULESET_PARTS } from '../network/network-public.js';
import { hotspotRulesetContributor } from './hotspot-ruleset.js';
import { registerHotspot, type HotspotDeps } from './hotspot-setup.js';
import { registerSmsRoutes } from './sms/sms-routes.js';
import { smsSignIn } from './sms/sms-signin.js';
import { registerLdapRoutes } from './ldap/ldap-routes.js';
import { ldapAuthenticator } from './ldap/ldap-signin.js';
import { registerRadius } from './radius/radius-routes.js';
import { radiusRulesetContributor } from './radius/radius-ruleset.js';

/**
 * The hotspot: its sets and redirects in the one ruleset (ahead of the firewall's rules), the
 * engine that authorises clients (restored at start, saved at stop), the portal listener and
 * the online-user routes.
 */
export const hotspotModule = defineDomain({
  name: 'hotspot',
  pages: ['authuserinfo', 'inneruser', 'expirationnotice', 'sms', 'ldap', 'radius', 'wifidog', 'cmccweb', 'rusystem', 'cloudportal', 'weixin', 'social'],
  contributions: (settings) => [
    contribute(RULESET_PARTS, hotspotRulesetContributor(() => settings.portalPort)),
    contribute(RULESET_PARTS, radiusRulesetContributor()),
  ],
  register: async (app, ctx, deps: HotspotDeps | undefined) => {
    registerSmsRoutes(app, ctx, smsSignIn(ctx));
    registerLdapRoutes(app, ctx);
    const radius = registerRadius(app, ctx);
    // Sign-in on outside servers goes through the engine's one extension point, per zone auth model.
    const ldap = ldapAuthenticator(ctx, (what, detail) => app.log.warn({ detail }, what));
    const { engine } = await registerHotspot(app, ctx, deps, { outside: { radius, ldap }, observers: [radius] });
    radius.attach(engine);
  },
});
