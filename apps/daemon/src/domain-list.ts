import { readSettings, type Settings } from './settings.js';
import { collectContributions, type DomainModule } from './config/domain-module.js';
import { registryOf, type DomainRegistry } from './config/config-domains.js';
import type { ConfigDomain } from './config/config-types.js';
import { RULESET_PARTS, type RulesetContributor } from './domains/network/network-ruleset-parts.js';
import { authModule } from './domains/auth/auth-module.js';
import { adminModule } from './domains/admin/admin-module.js';
import { menuModule } from './domains/menu/menu-module.js';
import { statusModule } from './domains/status/status-module.js';
import { networkModule } from './domains/network/network-module.js';
import { hotspotConfigModule } from './domains/hotspot-config/hotspot-config-module.js';
import { voucherModule } from './domains/voucher/voucher-module.js';
import { hotspotModule } from './domains/hotspot/hotspot-module.js';
import { firewallModule } from './domains/firewall/firewall-module.js';
import { qosModule } from './domains/qos/qos-module.js';
import { maintainModule } from './domains/maintain/maintain-module.js';
import { wirelessModule } from './domains/wireless/wireless-module.js';
import { vpnServerModule } from './domains/vpn-server/vpn-server-module.js';
import { pppServerModule } from './domains/ppp-server/ppp-server-module.js';
import { auditModule } from './domains/audit/audit-module.js';
import { speedtestModule } from './domains/speedtest/speedtest-module.js';
import { systemTimeModule } from './domains/system-time/system-time-module.js';
import { remoteAccessModule } from './domains/remote-access/remote-access-module.js';
import { netParamModule } from './domains/net-param/net-param-module.js';
import { remoteSyslogModule } from './domains/remote-syslog/remote-syslog-module.js';
import { diagnosisModule } from './domains/diagnosis/diagnosis-module.js';
import { rttyModule } from './domains/rtty/rtty-module.js';
import { systemInfoModule } from './domains/system-info/system-info-module.js';
import { healthModule } from './domains/health/health-module.js';
import { emailNoticeModule } from './domains/email-notice/email-notice-module.js';
import { logsModule } from './domains/logs/logs-module.js';
import { licenseModule } from './domains/license/license-module.js';

/**
 * Every domain of the daemon, in order. The order is the apply order of their configuration
 * (the network first: the others build on its devices) and the order in which their parts run
 * inside the one ruleset's extension chains (the hotspot's redirects before the firewall's
 * rules, Smart QoS's marks after them, the VPN servers' accepts last). Adding a domain: its folder, one line here.
 */
export const DOMAIN_MODULES = [
  authModule,
  adminModule,
  menuModule,
  statusModule,
  networkModule,
  hotspotConfigModule,
  voucherModule,
  hotspotModule,
  firewallModule,
  qosModule,
  wirelessModule,
  vpnServerModule,
  pppServerModule,
  auditModule,
  speedtestModule,
  systemTimeModule,
  remoteAccessModule,
  netParamModule,
  remoteSyslogModule,
  diagnosisModule,
  rttyModule,
  systemInfoModule,
  healthModule,
  emailNoticeModule,
  maintainModule,
  logsModule,
  licenseModule,
] as const;

type DepsOf<M> = M extends DomainModule<infer D> ? D : never;

/** A test's replacements for the services of each domain, by domain name. */
export type DomainDeps = {
  [M in (typeof DOMAIN_MODULES)[number] as [DepsOf<M>] extends [never] ? never : M['name']]?: DepsOf<M>;
};

/** The given settings over the defaults of an empty environment. */
function withDefaults(settings: Partial<Settings>): Settings {
  return { ...readSettings({}), ...settings };
}

/**
 * The apply pipeline of every domain for the given settings (the rest read as the defaults of
 * an empty environment): what the lab, the benchmarks and the render tests apply with.
 */
export function systemRegistry(settings: Partial<Settings> = {}, domains?: readonly ConfigDomain[]): DomainRegistry {
  return registryOf(DOMAIN_MODULES, withDefaults(settings), domains);
}

/** The ruleset contributions of every domain, in list order (render tests of the network domain). */
export function systemRulesetParts(settings: Partial<Settings> = {}): RulesetContributor[] {
  return collectContributions(DOMAIN_MODULES, withDefaults(settings))(RULESET_PARTS);
}
