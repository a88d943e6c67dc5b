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
  espMiB: 96,
  /** Free room on the root file system beyond its contents, for state, logs and updates. */
  rootSpareMiB: 512,
  kernelOptions: Object.freeze(['root=LABEL=portico-root', 'rw', 'console=tty0', 'console=ttyS0,115200n8', 'quiet', 'loglevel=3']),
  enabledUnits: Object.freeze(['portico-ports.service', 'portico.service']),
  /** Services Debian's packages would start that fight the daemon over links, DNS or DHCP. */
  maskedUnits: Object.freeze(['dnsmasq.service', 'hostapd.service', 'wpa_supplicant.service', 'xl2tpd.service', 'pptpd.service', 'openvpn.service', 'smbd.service', 'nmbd.service', 'samba-ad-dc.service']),
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
