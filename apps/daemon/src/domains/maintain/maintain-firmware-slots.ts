import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, Writable } from 'node:stream';
import { open, type FileHandle } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { z } from 'zod';
import { payloadParts, type FirmwarePartName, type VerifiedImage } from './maintain-firmware-image.js';

/**
 * A/B firmware slots (DESIGN §8 "signed images with A/B fallback").
 *
 * Two root slots, `a` and `b`. The one running and confirmed good is never written. An upgrade
 * writes the other one, and only once it is fully written does one last atomic step make the
 * next boot try it (a trial with a few tries). The boot selector boots a trial slot while it has
 * tries left, counting each down; a boot that reaches a working daemon confirms the slot, which
 * then becomes the good one. A trial that runs out of tries (the new image does not come up)
 * boots the good slot again. A kill while the slot is written leaves the switch unmade: the old
 * image boots. This is systemd-boot's boot counting (entries `name+tries.conf`, blessed by
 * systemd-bless-boot), which the linux device uses as it is; the sim device keeps the same
 * state machine in a file.
 */
export type Slot = 'a' | 'b';
export const SLOTS: readonly Slot[] = ['a', 'b'];
/** Boots a new slot gets before it is given up. */
export const TRIAL_TRIES = 3;

export const otherSlot = (slot: Slot): Slot => (slot === 'a' ? 'b' : 'a');

const slotSchema = z.enum(['a', 'b']);
export const bootStateSchema = z
  .object({
    format: z.literal(1),
    /** The last slot confirmed good: what boots when no trial is pending. */
    good: slotSchema,
    /** The slot the last boot chose. */
    running: slotSchema,
    versions: z.object({ a: z.string().nullable(), b: z.string().nullable() }).strict(),
    trial: z.object({ slot: slotSchema, triesLeft: z.number().int().min(0).max(TRIAL_TRIES) }).strict().nullable(),
  })
  .strict();
export type BootState = z.infer<typeof bootStateSchema>;

export function initialBootState(version: string): BootState {
  return { format: 1, good: 'a', running: 'a', versions: { a: version, b: null }, trial: null };
}

/** The slot an upgrade writes: never the good one, never the running one. */
export function targetSlot(state: BootState): Slot | null {
  // Running a trial not yet confirmed: both slots are needed as they are.
  if (state.running !== state.good) return null;
  return otherSlot(state.good);
}

/** The switch, made only after the slot is fully written. */
export function beginTrial(state: BootState, slot: Slot, version: string): BootState {
  if (slot === state.good) throw new Error('the good slot is never written');
  return { ...state, versions: { ...state.versions, [slot]: version }, trial: { slot, triesLeft: TRIAL_TRIES } };
}

/** What the boot selector does at each boot. */
export function selectBoot(state: BootState): BootState {
  if (state.trial && state.trial.triesLeft > 0) {
    return { ...state, running: state.trial.slot, trial: { ...state.trial, triesLeft: state.trial.triesLeft - 1 } };
  }
  // No trial, or one out of tries: the good slot. A failed trial is forgotten.
  return { ...state, running: state.good, trial: null };
}

/** A boot that came up: the running trial slot becomes the good one. */
export function confirmBoot(state: BootState): BootState {
  if (!state.trial || state.running !== state.trial.slot) return state;
  return { ...state, good: state.running, trial: null };
}

export interface SlotView {
  running: Slot;
  good: Slot;
  versions: Record<Slot, string | null>;
  /** A written slot the next boot tries. */
  trial: { slot: Slot; triesLeft: number } | null;
  /** Why this device cannot be upgraded here, or null. */
  unavailable: string | null;
}

export type InstallProgress = (written: number, total: number) => void;

/** The device side of an upgrade: the sim driver's files, or the linux partitions and boot entries. */
export interface SlotDevice {
  view(): SlotView;
  /** Writes the verified image into the slot an upgrade may write, then makes the next boot try it. */
  install(file: string, image: VerifiedImage, progress: InstallProgress): Promise<Slot>;
  /** At the start of the daemon (the sim's boot): the selector's choice. */
  boot(): void;
  /** The daemon is up with its configuration applied: the boot was good. */
  confirm(): void;
}

export class SlotsUnavailable extends Error {}

/**
 * Copies `size` bytes at `offset` of `file` to `target` (flags `w` or `r+` for a device),
 * synced; a gzip part (`unpackedSize` set) is unpacked on the way and must come to exactly that
 * size. `progress` counts the file's bytes read, so it stays within the header's size.
 */
async function copyRange(
  file: string,
  part: { offset: number; size: number; unpackedSize?: number },
  target: string,
  flags: 'w' | 'r+',
  progress: (n: number) => void,
): Promise<void> {
  if (part.size === 0) return;
  let read = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      read += chunk.length;
      progress(read);
      done(null, chunk);
    },
  });
  const expected = part.unpackedSize ?? part.size;
  let written = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      written += chunk.length;
      // A part that unpacks beyond its declared size never reaches past it on the device.
      if (written > expected) done(new Error(`the part unpacks beyond ${expected} bytes`));
      else done(null, chunk);
    },
  });
  const out = await open(target, flags);
  try {
    const source = createReadStream(file, { start: part.offset, end: part.offset + part.size - 1 });
    const sink = syncedWriter(out);
    if (part.unpackedSize === undefined) await pipeline(source, counter, limit, sink);
    else await pipeline(source, counter, createGunzip(), limit, sink);
    await out.sync();
  } finally {
    await out.close();
  }
  if (read !== part.size || written !== expected) throw new Error(`wrote ${written} of ${expected} bytes`);
}

/** Bytes gathered into one write, and written between two flushes to the disk. */
const WRITE_BYTES = 1024 * 1024;
const SYNC_BYTES = 32 * 1024 * 1024;

/**
 * Writes in 1 MiB pieces and flushes every 32 MiB: a root file system is larger than a small
 * device's memory, and left to the page cache its dirty pages crowd out everything else
 * (observed: a 1 GiB guest locked up writing 1.75 GB to its other slot).
 */
function syncedWriter(out: FileHandle): Writable {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let unsynced = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const data = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    for (let offset = 0; offset < data.length; ) offset += (await out.write(data, offset)).bytesWritten;
    unsynced += data.length;
    if (unsynced >= SYNC_BYTES) {
      await out.datasync();
      unsynced = 0;
    }
  };
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes < WRITE_BYTES) done();
      else flush().then(() => done(), done);
    },
    final(done) {
      flush().then(() => done(), done);
    },
  });
}

function writeAtomic(target: string, content: string): void {
  mkdirSync(dirname(target), { recursive: true });
  const temp = `${target}.tmp`;
  const fd = openSync(temp, 'w', 0o644);
  try {
    writeFileSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
}

/**
 * sim: the slots are files under `<state>/firmware/slots` (`slot-a.img`, `slot-b.img`) and the
 * selector's state is `boot.json`, replaced atomically; a simulated restart is a boot.
 */
export function fileSlotDevice(dir: string, currentVersion: string): SlotDevice {
  const stateFile = join(dir, 'boot.json');
  const load = (): BootState => {
    try {
      return bootStateSchema.parse(JSON.parse(readFileSync(stateFile, 'utf8')));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return initialBootState(currentVersion);
    }
  };
  const save = (state: BootState) => writeAtomic(stateFile, `${JSON.stringify(state)}\n`);
  return {
    view: () => ({ ...load(), unavailable: null }),
    async install(file, image, progress) {
      const state = load();
      const slot = targetSlot(state);
      if (!slot) throw new SlotsUnavailable('the running image is not confirmed yet');
      mkdirSync(dir, { recursive: true });
      const target = join(dir, `slot-${slot}.img`);
      // A slot being written is not bootable: its old content is gone and the switch is not made.
      rmSync(target, { force: true });
      await copyRange(file, { offset: image.payloadOffset, size: image.header.size }, `${target}.part`, 'w', (n) => progress(n, image.header.size));
      renameSync(`${target}.part`, target);
      save(beginTrial(state, slot, image.header.version));
      return slot;
    },
    boot() {
      save(selectBoot(load()));
    },
    confirm() {
      const state = load();
      const confirmed = confirmBoot(state);
      if (confirmed !== state) save(confirmed);
    },
  };
}

/** The names the router image gives its slots (image/image-layout.mjs). */
export const LINUX_SLOTS = {
  partition: (slot: Slot) => `/dev/disk/by-partlabel/portico-root-${slot}`,
  partLabel: (slot: Slot) => `portico-root-${slot}`,
  esp: '/boot/efi',
  entries: '/boot/efi/loader/entries',
  kernel: (slot: Slot) => `/portico-${slot}/vmlinuz`,
  initrd: (slot: Slot) => `/portico-${slot}/initrd.img`,
} as const;

/** `portico-b+2-1.conf` → slot b, 2 tries left; `portico-a.conf` → slot a, blessed. */
const ENTRY_NAME = /^portico-([ab])(?:\+(\d+)(?:-(\d+))?)?\.conf$/;

interface EntryFile {
  name: string;
  slot: Slot;
  triesLeft: number | null;
  version: string | null;
}

function readEntries(root: string): EntryFile[] {
  let names: string[];
  try {
    names = readdirSync(join(root, LINUX_SLOTS.entries));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.flatMap((name) => {
    const match = ENTRY_NAME.exec(name);
    if (!match) return [];
    const text = readFileSync(join(root, LINUX_SLOTS.entries, name), 'utf8');
    const version = /^version\s+(\S+)\s*$/m.exec(text)?.[1] ?? null;
    return [{ name, slot: match[1] as Slot, triesLeft: match[2] === undefined ? null : Number(match[2]), version }];
  });
}

/** Kernel arguments safe to carry into a boot entry: printable, no spaces inside, no newline. */
const KERNEL_ARG = /^[\x21-\x7e]{1,256}$/;

/**
 * linux: the router image's two root partitions (`portico-root-a`, `portico-root-b`) and
 * systemd-boot entries on the EFI partition, all under `root` (PORTICO_SYSTEM_ROOT). The
 * running slot is the one on the kernel command line. The root file system is written to the
 * other partition, kernel and initramfs beside it on the EFI partition, then the entry
 * `portico-<slot>+3.conf` (the switch, atomic) is written last: systemd-boot boots the newest
 * version first while it has tries, counts them down, and systemd-bless-boot confirms it once
 * the system reaches boot-complete.target; a slot out of tries is sorted last, so the old one boots.
 */
export function linuxSlotDevice(root: string): SlotDevice {
  const running = (): Slot | null => {
    let cmdline = '';
    try {
      cmdline = readFileSync(join(root, 'proc/cmdline'), 'utf8');
    } catch {
      return null;
    }
    const match = /(?:^|\s)root=PARTLABEL=portico-root-([ab])(?:\s|$)/.exec(cmdline);
    return match ? (match[1] as Slot) : null;
  };
  const view = (): SlotView => {
    const slot = running();
    const entries = readEntries(root);
    const versions: Record<Slot, string | null> = { a: null, b: null };
    let trial: SlotView['trial'] = null;
    for (const entry of entries) {
      versions[entry.slot] = entry.version;
      if (entry.triesLeft !== null && entry.triesLeft > 0) trial = { slot: entry.slot, triesLeft: entry.triesLeft };
    }
    if (!slot) return { running: 'a', good: 'a', versions, trial, unavailable: 'this system was not started from a firmware slot' };
    const good = trial?.slot === slot ? otherSlot(slot) : slot;
    return { running: slot, good, versions, trial: trial?.slot === slot ? null : trial, unavailable: null };
  };
  return {
    view,
    async install(file, image, progress) {
      const current = view();
      if (current.unavailable) throw new SlotsUnavailable(current.unavailable);
      // The running slot still being a trial: systemd-bless-boot has not confirmed it.
      if (readEntries(root).some((entry) => entry.slot === current.running && entry.triesLeft !== null)) {
        throw new SlotsUnavailable('the running image is not confirmed yet');
      }
      const slot = otherSlot(current.running);
      const args = readFileSync(join(root, 'proc/cmdline'), 'utf8')
        .trim()
        .split(/\s+/)
        .filter((arg) => arg !== '' && !arg.startsWith('initrd=') && !arg.startsWith('BOOT_IMAGE=') && !arg.startsWith('root='));
      if (!args.every((arg) => KERNEL_ARG.test(arg))) throw new Error('the kernel command line holds an argument a boot entry cannot carry');
      const parts = payloadParts(image);
      const names = new Set(parts.map((part) => part.name));
      if (!names.has('root') || !names.has('kernel') || !names.has('initrd')) {
        throw new SlotsUnavailable('the image lacks its kernel, initramfs or root file system');
      }
      // The old entry of the target slot goes first: a half-written slot must never be chosen.
      for (const entry of readEntries(root)) if (entry.slot === slot) rmSync(join(root, LINUX_SLOTS.entries, entry.name), { force: true });
      let done = 0;
      const targets: Record<FirmwarePartName, { path: string; flags: 'w' | 'r+' }> = {
        root: { path: join(root, LINUX_SLOTS.partition(slot)), flags: 'r+' },
        kernel: { path: join(root, LINUX_SLOTS.esp, LINUX_SLOTS.kernel(slot)), flags: 'w' },
        initrd: { path: join(root, LINUX_SLOTS.esp, LINUX_SLOTS.initrd(slot)), flags: 'w' },
      };
      for (const part of parts) {
        const target = targets[part.name];
        if (target.flags === 'w') mkdirSync(dirname(target.path), { recursive: true });
        const before = done;
        await copyRange(file, part, target.path, target.flags, (n) => progress(before + n, image.header.size));
        done += part.size;
      }
      const version = image.header.version;
      writeAtomic(
        join(root, LINUX_SLOTS.entries, `portico-${slot}+${TRIAL_TRIES}.conf`),
        [
          `title Portico ${version}`,
          'sort-key portico',
          `version ${version}`,
          `linux ${LINUX_SLOTS.kernel(slot)}`,
          `initrd ${LINUX_SLOTS.initrd(slot)}`,
          `options root=PARTLABEL=${LINUX_SLOTS.partLabel(slot)} ${args.join(' ')}`.trimEnd(),
          '',
        ].join('\n'),
      );
      return slot;
    },
    // systemd-boot chooses and systemd-bless-boot confirms: nothing for the daemon to do.
    boot: () => undefined,
    confirm: () => undefined,
  };
}
