#!/usr/bin/env node
// udhcpc runs this on each lease event (deconfig, bound, renew, leasefail, nak). It only
// records the event for the daemon, which validates the values (a DHCP server is untrusted)
// and applies them with argument arrays. No shell is involved: udhcpc executes this file.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const event = process.argv[2] ?? '';
const dir = process.env.PORTICO_DHCP_DIR ?? '';
const wan = process.env.PORTICO_WAN ?? '';
if (!dir || !/^[a-z][a-z0-9]{0,14}$/.test(wan) || !/^[a-z]{1,12}$/.test(event)) process.exit(1);

const field = (name) => String(process.env[name] ?? '').slice(0, 512);
const record = {
  event,
  ip: field('ip'),
  mask: field('mask'),
  subnet: field('subnet'),
  router: field('router'),
  dns: field('dns'),
  lease: field('lease'),
  at: Date.now(),
};
const target = join(dir, `${wan}.json`);
writeFileSync(`${target}.tmp`, JSON.stringify(record));
renameSync(`${target}.tmp`, target);
