import { rename, symlink, unlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { systemTime } from '@portico/schema';
import { contribute, defineDomain } from '../../config/domain-module.js';
import { activateWith } from '../../engine/engine-types.js';
import { RULESET_PARTS, type RulesetContributor } from '../network/network-public.js';
import { failure } from '../../plugins/api-envelope.js';
import { checkTimesyncd, checkTimezone, renderTimeFiles, savedTimeSettings, zoneExists, ZONEINFO_DIR } from './system-time-render.js';
import { registerSystemTime, type SystemTimeDeps } from './system-time-routes.js';
import { OPENWRT_SYSTEM_FILE, OPENWRT_SYSTEM_RELOADS, openwrtSystemDomain, SYSTEM_UCI_OPTIONS } from './system-time-openwrt.js';
import { parseUci } from '../../engine/uci-format.js';

/** The LAN NTP server: UDP 123 open from the LAN, and announced to DHCP clients (option 42). */
const ntpContributor: RulesetContributor = {
  entities: [systemTime.name],
  part(snapshot) {
    if (!savedTimeSettings(snapshot)?.ntp_server) return null;
    // 0.0.0.0: dnsmasq puts the address of the interface the request came in on.
    return { name: 'ntp server', filter: { hooks: { lan_to_device: ['udp dport 123 accept'] } }, dnsmasq: ['dhcp-option=option:ntp-server,0.0.0.0'] };
  },
  // On OpenWrt BusyBox ntpd serves (`enable_server`) and fw4's LAN zone accepts input; only the
  // announcement is added, to each LAN's dnsmasq `dhcp` section.
  openwrtLanDhcpOptions: (snapshot) => (savedTimeSettings(snapshot)?.ntp_server ? ['42,0.0.0.0'] : []),
};

/**
 * Time (spec §2 /system/clockconfiguration, §7 sysconf/time): time zone, NTP client
 * (systemd-timesyncd), the device as the LAN's NTP server, the clock set by hand.
 */
export const systemTimeModule = defineDomain({
  name: 'system-time',
  pages: ['clockconfiguration'],
  formats: [
    { name: 'timezone', builtin: checkTimezone },
    { name: 'timesyncd', builtin: checkTimesyncd },
  ],
  contributions: () => [contribute(RULESET_PARTS, ntpContributor)],
  // OpenWrt keeps its zone and NTP servers in UCI `system` (system-time-openwrt.ts).
  configDomains: ({ settings, contributions }) =>
    settings.driver === 'openwrt'
      ? [openwrtSystemDomain(contributions(SYSTEM_UCI_OPTIONS), settings.systemRoot)]
      : [{ name: 'system-time', entities: [systemTime.name], render: (snapshot) => [{ domain: 'system-time', files: renderTimeFiles(snapshot) }] }],
  activation: {
    openwrt: () => ({
      reloadFor: (target) => (target === OPENWRT_SYSTEM_FILE ? OPENWRT_SYSTEM_RELOADS : undefined),
      // The daemon's own local time (schedules, log lines) follows the zone at once, as on linux.
      async afterPass(live) {
        const file = live.find((f) => f.target === OPENWRT_SYSTEM_FILE);
        const zone = file && parseUci(file.content).find((section) => section.type === 'system')?.options.zonename;
        if (typeof zone === 'string') process.env.TZ = zone;
      },
    }),
    linux: ({ root, run }) => ({
      activate: {
        // /etc/localtime follows /etc/timezone: a new link renamed over the old one (atomic).
        timezone: async (file) => {
          const zone = file.content.trim();
          const link = join(root, '/etc/localtime');
          const temp = `${link}.portico-new`;
          await unlink(temp).catch(() => undefined);
          await symlink(join(ZONEINFO_DIR, zone), temp);
          await rename(temp, link);
          // The daemon's own local time (schedules, log lines) follows at once.
          process.env.TZ = zone;
        },
        // timesyncd runs only on a system booted with systemd (not in a container or the lab).
        timesyncd: async (file) => {
          if (!existsSync(join(root, '/run/systemd/system'))) return;
          await activateWith(run, file.target, ['systemctl', 'restart', 'systemd-timesyncd.service']);
        },
      },
    }),
  },
  bindings: () => ({
    [systemTime.name]: {
      rules: {
        checkWrite: (change) => {
          const zone = String(change.record.timezone ?? '');
          return zoneExists(zone) ? undefined : failure('msg.reviewFields', { timezone: 'validation.timezoneUnknown' });
        },
      },
    },
  }),
  register: (app, ctx, deps: SystemTimeDeps | undefined) => registerSystemTime(app, ctx, deps),
});

