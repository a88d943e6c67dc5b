#!/usr/bin/env node
// Waits until the daemon answers its console on the loopback address (or gives up after the
// bound): the one condition for a new firmware slot to be marked good. A slot whose daemon never
// answers is not confirmed, and systemd-boot falls back to the old slot once its tries are spent.
//
// Marking it good is systemd-bless-boot's rename of the counted entry
// (`portico-b+2-1.conf` → `portico-b.conf`). Debian ships that tool in `systemd-boot`, which the
// image does not carry (only the boot loader, `systemd-boot-efi`), so this check makes the same
// rename for the slot the kernel was booted from.
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

const port = Number(process.env.PORTICO_PORT ?? 8080);
const deadline = Date.now() + Number(process.env.PORTICO_BOOT_CHECK_SECONDS ?? 300) * 1000;

export async function answers(url) {
  try {
    const reply = await fetch(url, { signal: AbortSignal.timeout(5000) });
    return reply.ok;
  } catch {
    return false;
  }
}

/**
 * Blesses the running slot's entry under `entries` when it is on trial; answers the new name,
 * or null when there was nothing to bless (the slot is already good, or not a firmware slot).
 */
export function blessRunningSlot(cmdline, entries) {
  const slot = /(?:^|\s)root=PARTLABEL=portico-root-([ab])(?:\s|$)/.exec(cmdline)?.[1];
  if (!slot) return null;
  let names;
  try {
    names = readdirSync(entries);
  } catch {
    return null;
  }
  const counted = names.find((name) => new RegExp(`^portico-${slot}\\+\\d+(?:-\\d+)?\\.conf$`).test(name));
  if (!counted) return null;
  const blessed = `portico-${slot}.conf`;
  renameSync(join(entries, counted), join(entries, blessed));
  // The rename reaches the disk before the boot counts as done.
  const dir = openSync(entries, 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
  return blessed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = `http://127.0.0.1:${port}/api/changelang`;
  for (;;) {
    if (await answers(url)) break;
    if (Date.now() > deadline) {
      console.error(`portico did not answer at ${url}: this boot is not confirmed`);
      process.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  const blessed = blessRunningSlot(readFileSync('/proc/cmdline', 'utf8'), '/boot/efi/loader/entries');
  if (blessed) console.log(`firmware slot confirmed: ${blessed}`);
}
