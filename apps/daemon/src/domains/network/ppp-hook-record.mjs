// What pppd's link-up and link-down scripts (ppp-up-hook.mjs, ppp-down-hook.mjs) share. pppd
// runs them with the arguments interface, tty, speed, local address, remote address, ipparam,
// and an environment holding only its own variables (IFNAME, IPLOCAL, DNS1, DNS2, PPPD_PID …)
// and those of its `set` options: PORTICO_PPP_DIR, the folder the record goes to. The hook only
// records the event under the WAN's name (its ipparam) for the daemon, which checks every value
// again (the ISP controls the addresses and DNS servers) and applies it with argument arrays.
// No shell is involved: pppd executes the hook file itself.
import { renameSync, writeFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { join } from 'node:path';

const address = (value) => (typeof value === 'string' && isIPv4(value) ? value : '');

/** Records `event` ('up' or 'down') of the link pppd runs this hook for, or exits 1. */
export function recordPppEvent(event) {
  const [ifname = '', , , local = '', , ipparam = ''] = process.argv.slice(2);
  const dir = process.env.PORTICO_PPP_DIR ?? '';
  if (!dir.startsWith('/') || !/^[a-z][a-z0-9]{0,14}$/.test(ipparam)) process.exit(1);
  const pid = process.env.PPPD_PID ?? '';
  const record = {
    event,
    ifname: /^[A-Za-z0-9][A-Za-z0-9._-]{0,14}$/.test(ifname) ? ifname : '',
    local: address(local),
    dns: [process.env.DNS1, process.env.DNS2].map(address).filter(Boolean),
    pid: /^[1-9]\d{0,9}$/.test(pid) ? Number(pid) : null,
    at: Date.now(),
  };
  const target = join(dir, `${ipparam}.json`);
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(record));
  renameSync(temporary, target);
}
