// Where things are in the gateway image, in one place: the build, the VM launcher and the VM
// tier's tests read these.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export const IMAGE_LAYOUT = Object.freeze({
  /** The project, laid out as in the repository (the daemon finds the console and portal beside it). */
  appDir: '/usr/lib/portico',
  node: '/usr/local/bin/node',
  rootLabel: 'portico-root',
  /**
   * A/B firmware slots (apps/daemon/src/domains/maintain/maintain-firmware-slots.ts): two root
   * partitions by GPT name, the first written by the build, the second by the first upgrade;
   * each slot's kernel and initramfs under /portico-<slot>/ on the EFI partition, its
   * systemd-boot entry /loader/entries/portico-<slot>.conf.
   */
  slots: Object.freeze({ a: 'portico-root-a', b: 'portico-root-b' }),
  /** The state partition both slots mount at stateDir, so an upgrade keeps the configuration. */
  statePartLabel: 'portico-state',
  /** Holds the configuration and a downloaded firmware file (its compressed root is ~0.5 GB). */
  stateMiB: 1024,
  /** The vendor's firmware signing key (public), PORTICO_FIRMWARE_PUBLIC_KEY at build time. */
  firmwareKey: '/etc/portico/keys/firmware-signing.pem',
  /** Room for two kernels and initramfs images. */
  espMiB: 192,
  /** Free room on the root file system beyond its contents, for state, logs and updates. */
  rootSpareMiB: 512,
  /** Slot a's; an upgrade writes the other slot's entry with its own root= (the rest carried over). */
  kernelOptions: Object.freeze(['root=PARTLABEL=portico-root-a', 'rw', 'rootflags=noatime,errors=remount-ro', 'console=tty0', 'console=ttyS0,115200n8', 'quiet', 'loglevel=3']),
  enabledUnits: Object.freeze(['portico-ports.service', 'portico.service', 'portico-boot-ok.service']),
  /** Services Debian's packages would start that fight the daemon over links, DNS or DHCP. */
  maskedUnits: Object.freeze(['dnsmasq.service', 'hostapd.service', 'wpa_supplicant.service', 'xl2tpd.service', 'pptpd.service', 'openvpn.service', 'strongswan.service', 'smbd.service', 'nmbd.service', 'samba-ad-dc.service']),
  /** The daemon's state (configuration database, generated admin password). */
  stateDir: '/var/lib/portico',
  /** Settings the port assignment writes on the first boot, read by the daemon's unit. */
  portsEnv: '/etc/portico/ports.env',
  consolePort: 8080,
});

/** The Debian packages of the image, every group's, with the suite and mirror. */
export function imagePackages() {
  const spec = JSON.parse(readFileSync(join(here, 'image-packages.json'), 'utf8'));
  const packages = Object.values(spec.groups).flatMap((group) => group.packages);
  return { suite: spec.suite, mirror: spec.mirror, packages: [...new Set(packages)] };
}
