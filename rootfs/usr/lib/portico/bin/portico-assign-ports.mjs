// First boot of the gateway image: finds the Ethernet ports and writes which is the WAN and
// which are the LAN, in bus order (the first port is the WAN, the rest are the LAN), like the
// labels on an appliance's back panel. With one port only, it is the LAN: the console must be
// reachable. Usage: portico-assign-ports.mjs <env file> [sysfs net folder]
import { existsSync, readdirSync, readFileSync, realpathSync, renameSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Interface names as the daemon's settings accept them. */
const PORT_NAME = /^[A-Za-z0-9_.-]{1,15}$/;
/** ARPHRD_ETHER */
const ETHERNET = '1';

export function ethernetPorts(sysNet = '/sys/class/net') {
  const ports = [];
  for (const name of readdirSync(sysNet)) {
    const dir = join(sysNet, name);
    // A port is a device on a bus: bridges, VLANs, veths and tunnels have no `device`.
    if (!existsSync(join(dir, 'device'))) continue;
    if (readFileSync(join(dir, 'type'), 'utf8').trim() !== ETHERNET) continue;
    // Radios are the wireless controller's, not wired ports.
    if (existsSync(join(dir, 'wireless')) || existsSync(join(dir, 'phy80211'))) continue;
    if (!PORT_NAME.test(name)) continue;
    ports.push({ name, bus: realpathSync(join(dir, 'device')) });
  }
  // Bus addresses are fixed-width hex: code-unit order is bus order.
  return ports.sort((a, b) => (a.bus < b.bus ? -1 : a.bus > b.bus ? 1 : 0)).map((port) => port.name);
}

export function assignment(ports) {
  if (ports.length <= 1) return { wan: [], lan: ports };
  return { wan: ports.slice(0, 1), lan: ports.slice(1) };
}

export function envFile({ wan, lan }) {
  return [
    '# Written on the first boot from the Ethernet ports found, in bus order; edit to reassign.',
    `PORTICO_WAN_PORTS=${wan.join(' ')}`,
    `PORTICO_LAN_PORTS=${lan.join(' ')}`,
    '',
  ].join('\n');
}

function main([target, sysNet]) {
  if (!target) {
    process.stderr.write('usage: portico-assign-ports.mjs <env file> [sysfs net folder]\n');
    process.exit(2);
  }
  const chosen = assignment(ethernetPorts(sysNet));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(`${target}.new`, envFile(chosen), { mode: 0o644 });
  renameSync(`${target}.new`, target);
  process.stdout.write(`WAN: ${chosen.wan.join(' ') || '-'}; LAN: ${chosen.lan.join(' ') || '-'}\n`);
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(new URL(import.meta.url).pathname)) main(process.argv.slice(2));
