import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { contribute, defineDomain } from '../../config/domain-module.js';
import { RULESET_PARTS } from '../network/network-public.js';
import { hotspotRulesetContributor } from './hotspot-ruleset.js';
import { registerHotspot, type HotspotDeps } from './hotspot-setup.js';
import { registerSmsRoutes } from './sms/sms-routes.js';
import { smsSignIn } from './sms/sms-signin.js';
import { DUE_ROUND_MS, SmsNotices } from './sms/sms-notices.js';
import { localUsers } from '../hotspot-config/hotspot-config-public.js';
import { registerLdapRoutes } from './ldap/ldap-routes.js';
import { ldapAuthenticator } from './ldap/ldap-signin.js';
import { registerRadius } from './radius/radius-routes.js';
import { radiusRulesetContributor } from './radius/radius-ruleset.js';
import { cmccRulesetContributor } from './cmcc/cmcc-ruleset.js';
import { hotspotOpenwrtDhcp, renderOpenwrtCmcc, renderOpenwrtHotspot, renderOpenwrtRadius } from './hotspot-openwrt.js';

/**
 * The hotspot: its sets and redirects in the one ruleset (ahead of the firewall's rules), the
 * engine that authorises clients (restored at start, saved at stop), the portal listener and
 * the online-user routes.
 */
export const hotspotModule = defineDomain({
  name: 'hotspot',
  pages: ['authuserinfo', 'inneruser', 'expirationnotice', 'sms', 'ldap', 'radius', 'wifidog', 'cmccweb', 'rusystem', 'cloudportal', 'weixin', 'social'],
  // On OpenWrt the same parts as fw4 includes and dnsmasq sections (hotspot-openwrt.ts).
  contributions: (settings) => [
    contribute(RULESET_PARTS, {
      ...hotspotRulesetContributor(() => settings.portalPort),
      openwrt: (snapshot, plan) => renderOpenwrtHotspot(snapshot, plan, settings.portalPort),
      openwrtDhcp: hotspotOpenwrtDhcp,
    }),
    contribute(RULESET_PARTS, { ...radiusRulesetContributor(), openwrt: renderOpenwrtRadius }),
    contribute(RULESET_PARTS, { ...cmccRulesetContributor(), openwrt: renderOpenwrtCmcc }),
  ],
  register: async (app, ctx, deps: HotspotDeps | undefined) => {
    registerSmsRoutes(app, ctx, smsSignIn(ctx));
    registerSmsNotices(app, ctx);
    registerLdapRoutes(app, ctx);
    const radius = registerRadius(app, ctx);
    // Sign-in on outside servers goes through the engine's one extension point, per zone auth model.
    const ldap = ldapAuthenticator(ctx, (what, detail) => app.log.warn({ detail }, what));
    const { engine } = await registerHotspot(app, ctx, deps, { outside: { radius, ldap }, observers: [radius] });
    radius.attach(engine);
  },
});

declare module 'fastify' {
  interface FastifyInstance {
    smsNotices: SmsNotices;
  }
}

/** New-account messages as accounts are added; due notices every few minutes. */
function registerSmsNotices(app: FastifyInstance, ctx: AppContext): void {
  const report = (error: unknown, what: string) => app.log.warn({ err: error }, what);
  const notices = new SmsNotices(ctx, smsSignIn(ctx), localUsers(ctx), report);
  app.decorate('smsNotices', notices);
  const unfollow = localUsers(ctx).onCreated((user, password) => {
    notices.accountCreated(user, password).catch((error) => report(error, 'SMS new-account notice failed'));
  });
  const round = () => notices.dueRound().catch((error) => report(error, 'SMS due notices failed'));
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    void round();
    timer = setInterval(round, DUE_ROUND_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    unfollow();
    if (timer) clearInterval(timer);
  });
}
