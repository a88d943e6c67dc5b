#!/usr/bin/env node
// Waits until the daemon answers its console on the loopback address (or gives up after the
// bound): the one condition for a new firmware slot to be marked good. A slot whose daemon never
// answers is not confirmed, and systemd-boot falls back to the old slot once its tries are spent.
// Tries are spent only by booting, so an unconfirmed boot of a counted entry reboots: a device
// left alone with a firmware that never comes up is back on the old one after its tries.
//
// Marking it good is systemd-bless-boot's rename of the counted entry
// (`portico-b+2-1.conf` → `portico-b.conf`). Debian ships that tool in `systemd-boot`, which the
// image does not carry (only the boot loader, `systemd-boot-efi`), so this check makes the same
// rename for the slot the kernel was booted from.
import { spawnSync } from 'node:child_process';
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

/** systemd-boot's vendor GUID for the EFI variables it sets for the booted system. */
const LOADER_VARIABLES = '4a67b082-0a4c-41cf-b6c7-440b29bb8c4f';

const port = Number(process.env.PORTICO_PORT ?? 8080);
const deadline = Date.now() + Number(process.env.PORTICO_BOOT_CHECK_SECONDS ?? 300) * 1000;

/** The firmware slot the kernel was booted from (its root partition), or undefined. */
const runningSlot = (cmdline) => /(?:^|\s)root=PARTLABEL=portico-root-([ab])(?:\s|$)/.exec(cmdline)?.[1];

/** A slot's entry that counts tries: `portico-b+3.conf`, `portico-b+2-1.conf`, `portico-b+0-3.conf`. */
const countedEntry = (slot) => new RegExp(`^portico-${slot}\\+\\d+(?:-\\d+)?\\.conf$`);

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
  const slot = runningSlot(cmdline);
  if (!slot) return null;
  let names;
  try {
    names = readdirSync(entries);
  } catch {
    return null;
  }
  const counted = names.find((name) => countedEntry(slot).test(name));
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

/**
 * The counted entry systemd-boot booted (`portico-b+2-1.conf`), from its LoaderBootCountPath
 * variable (`\loader\entries\portico-b+2-1.conf`, UTF-16LE after 4 bytes of attributes), or
 * null: an entry without tries, or no such variable (not booted by systemd-boot).
 */
export function bootedCountedEntry(efivars) {
  let raw;
  try {
    raw = readFileSync(join(efivars, `LoaderBootCountPath-${LOADER_VARIABLES}`));
  } catch {
    return null;
  }
  const path = raw.subarray(4).toString('utf16le').replace(/\0+$/, '');
  const name = path.split('\\').pop() ?? '';
  return /^portico-[ab]\+\d+(?:-\d+)?\.conf$/.test(name) ? name : null;
}

/**
 * Whether an unconfirmed boot should reboot: it was booted from a counted entry (the boot
 * loader's own record), or, without that record, the running slot's entry is still counted (its
 * last try is `+0-N` while it runs; after a fallback the running slot is the other, good one).
 */
export function onTrial(cmdline, entries, efivars) {
  if (bootedCountedEntry(efivars)) return true;
  const slot = runningSlot(cmdline);
  if (!slot) return false;
  try {
    return readdirSync(entries).some((name) => countedEntry(slot).test(name));
  } catch {
    return false;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = `http://127.0.0.1:${port}/api/changelang`;
  for (;;) {
    if (await answers(url)) break;
    if (Date.now() > deadline) {
      console.error(`portico did not answer at ${url}: this boot is not confirmed`);
      if (onTrial(readFileSync('/proc/cmdline', 'utf8'), '/boot/efi/loader/entries', '/sys/firmware/efi/efivars')) {
        // The boot loader counts a try per boot: reboot so the old slot comes back once they are spent.
        console.error('firmware slot on trial: rebooting');
        spawnSync('/usr/bin/systemctl', ['reboot'], { stdio: 'inherit' });
      }
      process.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  const blessed = blessRunningSlot(readFileSync('/proc/cmdline', 'utf8'), '/boot/efi/loader/entries');
  if (blessed) console.log(`firmware slot confirmed: ${blessed}`);
}
