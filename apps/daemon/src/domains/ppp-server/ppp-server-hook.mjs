#!/usr/bin/env node
// pppd's ip-up-script and ip-down-script for the PPP servers' sessions. pppd runs it with the
// arguments interface, tty, speed, local address, remote address, ipparam, and an environment
// holding only its own variables (PEERNAME, REMOTENUMBER, PPPD_PID …) and those of its `set`
// options: PORTICO_PPP_SERVER_DIR (where records go) and PORTICO_PPP_SERVER_KIND. On up it
// records the session as `<interface>.json` (replaced by a rename); on down it removes it. The
// daemon checks every value again (the user name and REMOTENUMBER come from the client).
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { join } from 'node:path';

const [ifname = '', , , local = '', remote = '', ipparam = ''] = process.argv.slice(2);
const dir = process.env.PORTICO_PPP_SERVER_DIR ?? '';
const kind = process.env.PORTICO_PPP_SERVER_KIND ?? '';
if (!dir.startsWith('/') || !/^ppp[0-9]{1,5}$/.test(ifname) || !['pptp', 'l2tp', 'pppoe'].includes(kind)) process.exit(1);
const target = join(dir, `${ifname}.json`);
// pppd runs this one file for up and down; CONNECT_TIME is set on down only.
if (process.env.CONNECT_TIME !== undefined) {
  rmSync(target, { force: true });
  process.exit(0);
}
const text = (value, max) => (typeof value === 'string' && /^[\x20-\x7e]*$/.test(value) ? value.slice(0, max) : '');
const pid = process.env.PPPD_PID ?? '';
const record = {
  kind,
  ifname,
  username: text(process.env.PEERNAME, 64),
  from: text(process.env.REMOTENUMBER || ipparam, 64),
  local: isIPv4(local) ? local : '',
  address: isIPv4(remote) ? remote : '',
  pid: /^[1-9]\d{0,9}$/.test(pid) ? Number(pid) : null,
  at: Date.now(),
};
writeFileSync(`${dir.replace(/\/$/, '')}/.${ifname}.${process.pid}.tmp`, JSON.stringify(record));
renameSync(`${dir.replace(/\/$/, '')}/.${ifname}.${process.pid}.tmp`, target);
