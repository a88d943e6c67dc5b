import { existsSync } from 'node:fs';
import { run } from './lab-topology.js';

/** Debian packages the lab needs, by the binary that shows each is there. */
export const LAB_PACKAGES: Record<string, string> = {
  '/usr/sbin/ip': 'iproute2',
  '/usr/sbin/nft': 'nftables',
  '/usr/sbin/dnsmasq': 'dnsmasq-base',
  '/usr/sbin/dhclient': 'isc-dhcp-client',
  '/usr/bin/iperf3': 'iperf3',
  '/usr/sbin/conntrack': 'conntrack',
  '/usr/sbin/arping': 'arping',
  '/usr/bin/busybox': 'busybox',
  // The daemon's WAN health probes (the device has iputils' ping).
  '/usr/bin/ping': 'iputils-ping',
  '/usr/bin/opennds': 'opennds',
  // openNDS (benchmarked beside the hotspot engine) drives iptables; this kernel takes the legacy backend.
  '/usr/sbin/iptables-legacy': 'iptables',
  // Compiles the daemon's eBPF classifier for download shaping on IFB (apps/daemon/bpf-build.mjs).
  '/usr/bin/clang': 'clang',
  // The OpenVPN server the daemon runs, and the lab's OpenVPN client.
  '/usr/sbin/openvpn': 'openvpn',
  // The behaviour audit reads its NFLOG group with tcpdump.
  '/usr/bin/tcpdump': 'tcpdump',
  // The IPsec server's charon (run by the daemon) and the lab's strongSwan peer; swanctl drives both.
  '/usr/sbin/charon-systemd': 'charon-systemd',
  '/usr/sbin/swanctl': 'strongswan-swanctl',
};

/** What the AP agent's lab test needs: hostapd (wired driver), a wpa_supplicant station, iw. */
export const WIRELESS_LAB_PACKAGES: Record<string, string> = {
  '/usr/sbin/ip': 'iproute2',
  '/usr/sbin/hostapd': 'hostapd',
  '/usr/sbin/hostapd_cli': 'hostapd',
  '/usr/sbin/wpa_supplicant': 'wpasupplicant',
  '/usr/sbin/wpa_cli': 'wpasupplicant',
  '/usr/sbin/iw': 'iw',
};

/**
 * What the health monitor's lab test needs besides the lab's own: the rogue servers it finds
 * (dnsmasq is already there; `pppoe-server` is in Debian's pppoe, with ppp) and a C compiler
 * for the daemon's packet helper (apps/daemon/l2probe-build.mjs).
 */
export const HEALTH_LAB_PACKAGES: Record<string, string> = {
  '/usr/sbin/ip': 'iproute2',
  '/usr/sbin/dnsmasq': 'dnsmasq-base',
  '/usr/sbin/pppoe-server': 'pppoe',
  '/usr/bin/cc': 'gcc',
};

/** Installs what is missing from Debian's packages (root only); returns what is still missing. */
export function ensureLabPackages(packages: Record<string, string> = LAB_PACKAGES): string[] {
  const missing = Object.entries(packages).filter(([bin]) => !existsSync(bin));
  if (missing.length && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    process.env.DEBIAN_FRONTEND = env.DEBIAN_FRONTEND;
    run(['apt-get', 'update', '-qq'], { allowFail: true });
    run(['apt-get', 'install', '-y', '-qq', ...new Set(missing.map(([, pkg]) => pkg))]);
  }
  return Object.entries(packages)
    .filter(([bin]) => !existsSync(bin))
    .map(([, pkg]) => pkg);
}

/** The lab needs root for namespaces; CI and the lab script run as root. */
export function labPrerequisites(packages: Record<string, string> = LAB_PACKAGES): string | null {
  if (process.getuid?.() !== 0) return 'the network lab needs root (network namespaces)';
  const missing = ensureLabPackages(packages);
  if (missing.length) return `missing Debian packages: ${missing.join(', ')}`;
  return null;
}
