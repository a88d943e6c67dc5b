// `npm run image`: builds the x86-64 gateway image from Debian packages and the built project.
// Output: image/out/portico.img (raw GPT disk: an EFI system partition with systemd-boot, the
// kernel and its initramfs, and an ext4 root). Every command runs with an argument array.
//
// Layers, so that a rebuild is fast:
// 1. base: Debian's packages (image-packages.json) bootstrapped by mmdebstrap, kept as a tar in
//    the cache under a key of the package list; the downloaded .debs are kept too, so a changed
//    list downloads only what is new;
// 2. the project: the built daemon, console and portal, Node, rootfs/ laid over;
// 3. the disk: partitions made from folders (mkfs.ext4 -d, mtools), no loop device, no mount.
import { createHash, createPublicKey } from 'node:crypto';
import { chmodSync, closeSync, copyFileSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, readSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { IMAGE_LAYOUT, imagePackages } from './image-layout.mjs';
import { copyRuntimeModules } from '../deploy/container/runtime-node-modules.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');

/** Host tools the build needs, by the command that shows each is there, and its Debian package. */
const HOST_TOOLS = {
  mmdebstrap: 'mmdebstrap',
  'mkfs.ext4': 'e2fsprogs',
  'mkfs.vfat': 'dosfstools',
  mcopy: 'mtools',
  sfdisk: 'fdisk',
  systemctl: 'systemd',
};

function log(line) {
  process.stdout.write(`[image] ${line}\n`);
}

/** Runs a command; throws with its output when it fails. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: options.input !== undefined ? ['pipe', 'inherit', 'inherit'] : 'inherit', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.slice(0, 3).join(' ')} … exited ${result.status}`);
  return result;
}

/** A command on the usual paths, or an absolute file. */
function hasCommand(name) {
  if (name.startsWith('/')) return existsSync(name);
  return ['/usr/sbin', '/usr/bin', '/sbin', '/bin'].some((dir) => existsSync(join(dir, name)));
}

/** Installs missing host tools (command name or absolute file → Debian package) as root, or says what is missing. */
export function ensureHostTools(tools = HOST_TOOLS) {
  const missing = [...new Set(Object.entries(tools).filter(([command]) => !hasCommand(command)).map(([, pkg]) => pkg))];
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`the image build needs root and these Debian packages: ${missing.join(' ')}`);
  log(`installing ${missing.join(' ')} from Debian's packages`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
}

/** Whether Debian's mirror answers: tells an unreachable network from a broken build. */
export async function mirrorReachable() {
  const { mirror, suite } = imagePackages();
  try {
    const reply = await fetch(`${mirror}/dists/${suite}/InRelease`, { method: 'HEAD', signal: AbortSignal.timeout(15_000) });
    return reply.ok;
  } catch {
    return false;
  }
}

function cacheRoot() {
  return process.env.PORTICO_IMAGE_CACHE || join(homedir(), '.cache', 'portico-image');
}

/** The base layer: every Debian package of the image, cached as a tar under a key of the list. */
function baseLayer(cache) {
  const spec = readFileSync(join(here, 'image-packages.json'));
  const key = createHash('sha256').update(spec).digest('hex').slice(0, 16);
  const tar = join(cache, `base-${key}.tar`);
  if (existsSync(tar)) {
    log(`base layer from the cache (${key})`);
    return { tar, cached: true };
  }
  const { suite, mirror, packages } = imagePackages();
  const debs = join(cache, 'debs');
  mkdirSync(debs, { recursive: true });
  log(`base layer: bootstrapping ${packages.length} packages from ${mirror} (${suite})`);
  const partial = `${tar}.partial`;
  rmSync(partial, { force: true });
  run('mmdebstrap', [
    '--mode=root',
    '--variant=apt',
    '--format=tar',
    `--include=${packages.join(',')}`,
    '--components=main',
    // The .debs already downloaded by an earlier build: a changed list fetches only what is new.
    '--skip=download/empty',
    '--skip=essential/unlink',
    // sync-in needs its target folder: a hook file makes it (a file, so no shell is involved).
    `--setup-hook=${join(here, 'mmdebstrap-apt-cache-dir.mjs')}`,
    `--setup-hook=sync-in ${debs} /var/cache/apt/archives/`,
    `--customize-hook=sync-out /var/cache/apt/archives ${debs}`,
    suite,
    partial,
    mirror,
  ]);
  renameSync(partial, tar);
  // Older base layers are of lists no longer built.
  for (const name of readdirSync(cache)) if (/^base-[0-9a-f]{16}\.tar$/.test(name) && join(cache, name) !== tar) rmSync(join(cache, name));
  return { tar, cached: false };
}

/** Copies the built project into the root tree, laid out as in the repository so it finds its parts. */
export function installProject(root) {
  const app = join(root, IMAGE_LAYOUT.appDir.slice(1));
  const needed = ['apps/daemon/dist/main.mjs', 'apps/console/dist/index.html', 'apps/portal/dist/index.html', 'apps/ap-agent/dist/portico-agent.mjs'];
  for (const file of needed) if (!existsSync(join(repo, file))) throw new Error(`${file} is missing: build the project first (npm run build)`);
  // The AP agent too: the same image runs as an access point or CPE managed by another gateway.
  for (const part of ['apps/daemon/dist', 'apps/console/dist', 'apps/portal/dist', 'apps/ap-agent/dist']) {
    cpSync(join(repo, part), join(app, part), { recursive: true, filter: (src) => !src.endsWith('.map') });
  }
  // better-sqlite3: exactly the files Node loads to open a database, as the container image takes them.
  copyRuntimeModules(join(app, 'apps/daemon'));
  // The Node the project was built and tested with (the addon is built against its ABI).
  copyFileSync(process.execPath, join(root, IMAGE_LAYOUT.node.slice(1)));
  chmodSync(join(root, IMAGE_LAYOUT.node.slice(1)), 0o755);
}

/**
 * The vendor's firmware signing key (public half, PEM), laid where the daemon looks for it
 * (PORTICO_FIRMWARE_KEY's default): without one the device refuses every firmware file.
 */
export function installFirmwareKey(root, file) {
  const key = createPublicKey(readFileSync(file));
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${file} is not an Ed25519 public key`);
  const target = join(root, IMAGE_LAYOUT.firmwareKey.slice(1));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, key.export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
  return createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
}

export function overlayRootfs(root) {
  // Documentation and type declarations of the overlay stay in the repository.
  cpSync(join(repo, 'rootfs'), root, { recursive: true, filter: (src) => !/(README\.md|\.d\.mts)$/.test(src) });
  const version = JSON.parse(readFileSync(join(repo, 'apps', 'daemon', 'package.json'), 'utf8')).version;
  writeFileSync(join(root, 'etc/portico-release'), `PORTICO_VERSION=${version}\n`);
  // systemd generates the machine id on the first boot, like every copy of an image should.
  writeFileSync(join(root, 'etc/machine-id'), '');
  rmSync(join(root, 'var/lib/dbus/machine-id'), { force: true });
  writeFileSync(join(root, 'etc/hostname'), 'portico\n');
  run('systemctl', [`--root=${root}`, 'enable', ...IMAGE_LAYOUT.enabledUnits]);
  // The gateway's own DNS/DHCP is dnsmasq under the daemon; nothing else configures links.
  run('systemctl', [`--root=${root}`, 'mask', ...IMAGE_LAYOUT.maskedUnits]);
}

/** Newest kernel and initramfs in the root tree's /boot. */
function bootFiles(root) {
  const boot = join(root, 'boot');
  const kernels = readdirSync(boot).filter((name) => /^vmlinuz-/.test(name)).sort();
  const kernel = kernels.at(-1);
  if (!kernel) throw new Error('no kernel in /boot');
  const version = kernel.slice('vmlinuz-'.length);
  const initrd = `initrd.img-${version}`;
  if (!existsSync(join(boot, initrd))) throw new Error(`no ${initrd} in /boot`);
  return { kernel: join(boot, kernel), initrd: join(boot, initrd), version };
}

const SECTOR = 512;
const MIB = 1024 * 1024;

/** Bytes under a folder (apparent sizes), for sizing the root file system. */
function treeBytes(dir) {
  const result = run('du', ['-s', '-B1', '--apparent-size', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  return Number(String(result.stdout).split(/\s/)[0]);
}

/** The image's version: the daemon's, which the firmware flow compares with the update server's. */
function imageVersion() {
  return JSON.parse(readFileSync(join(here, '..', 'apps/daemon/package.json'), 'utf8')).version;
}

/**
 * systemd-boot picks among the portico-* entries: the newest version first, an entry on trial
 * (`name+tries.conf`) while it has tries, one out of tries last, so a new slot that never
 * confirms a boot falls back to the old one.
 */
export function loaderConf() {
  return 'default portico-*\ntimeout 0\nconsole-mode keep\n';
}

/** The boot entry of a slot, as the daemon writes the other slot's on an upgrade. */
export function slotEntry(slot, version) {
  const options = IMAGE_LAYOUT.kernelOptions.map((option) => (option.startsWith('root=') ? `root=PARTLABEL=${IMAGE_LAYOUT.slots[slot]}` : option));
  return [`title Portico ${version}`, 'sort-key portico', `version ${version}`, `linux /portico-${slot}/vmlinuz`, `initrd /portico-${slot}/initrd.img`, `options ${options.join(' ')}`, ''].join('\n');
}

function espImage(file, root, boot) {
  rmSync(file, { force: true });
  run('mkfs.vfat', ['-F', '32', '-n', 'PORTICO-EFI', '-C', file, String(IMAGE_LAYOUT.espMiB * 1024)], { stdio: ['ignore', 'ignore', 'inherit'] });
  const env = { ...process.env, MTOOLS_SKIP_CHECK: '1' };
  for (const dir of ['::/EFI', '::/EFI/BOOT', '::/loader', '::/loader/entries', '::/portico-a']) run('mmd', ['-i', file, dir], { env });
  const put = (src, dest) => run('mcopy', ['-i', file, src, dest], { env });
  put(join(root, 'usr/lib/systemd/boot/efi/systemd-bootx64.efi'), '::/EFI/BOOT/BOOTX64.EFI');
  put(boot.kernel, '::/portico-a/vmlinuz');
  put(boot.initrd, '::/portico-a/initrd.img');
  const staging = `${file}.d`;
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'loader.conf'), loaderConf());
  writeFileSync(join(staging, 'portico-a.conf'), slotEntry('a', imageVersion()));
  put(join(staging, 'loader.conf'), '::/loader/loader.conf');
  put(join(staging, 'portico-a.conf'), '::/loader/entries/portico-a.conf');
  rmSync(staging, { recursive: true, force: true });
}

function rootImage(file, root) {
  const bytes = Math.ceil((treeBytes(root) * 1.25 + IMAGE_LAYOUT.rootSpareMiB * MIB) / MIB) * MIB;
  rmSync(file, { force: true });
  run('mkfs.ext4', ['-q', '-F', '-L', IMAGE_LAYOUT.rootLabel, '-d', root, file, `${bytes / 1024}k`]);
}

/** Copies `src` into `fd` at byte `offset`; zero chunks are skipped, the target being a fresh sparse file. */
function writeAt(fd, src, offset) {
  const input = openSync(src, 'r');
  const chunk = Buffer.alloc(4 * MIB);
  const zero = Buffer.alloc(chunk.length);
  let position = 0;
  for (;;) {
    const read = readSync(input, chunk, 0, chunk.length, position);
    if (read === 0) break;
    if (chunk.compare(zero, 0, read, 0, read) !== 0) writeSync(fd, chunk, 0, read, offset + position);
    position += read;
  }
  closeSync(input);
}

/** The empty state partition both slots mount at the daemon's state folder. */
function stateImage(file) {
  rmSync(file, { force: true });
  run('mkfs.ext4', ['-q', '-F', '-L', IMAGE_LAYOUT.statePartLabel, file, `${IMAGE_LAYOUT.stateMiB * 1024}k`]);
}

/**
 * A GPT disk: the ESP, root slot a (the built root), root slot b (as large, left empty for the
 * first upgrade: sparse in the file), the state partition; partitions are copied in at their offsets.
 */
export function diskImage(file, esp, rootfs, state) {
  const first = 2048;
  const espSectors = statSync(esp).size / SECTOR;
  const rootStart = first + espSectors;
  const rootSectors = statSync(rootfs).size / SECTOR;
  const slotBStart = rootStart + rootSectors;
  const stateStart = slotBStart + rootSectors;
  const stateSectors = statSync(state).size / SECTOR;
  // The backup GPT takes the last 33 sectors.
  const total = (stateStart + stateSectors + 2048) * SECTOR;
  rmSync(file, { force: true });
  const fd = openSync(file, 'w');
  closeSync(fd);
  run('truncate', ['-s', String(total), file]);
  const table = [
    'label: gpt',
    `start=${first}, size=${espSectors}, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name="EFI"`,
    `start=${rootStart}, size=${rootSectors}, type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, name="${IMAGE_LAYOUT.slots.a}"`,
    `start=${slotBStart}, size=${rootSectors}, type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, name="${IMAGE_LAYOUT.slots.b}"`,
    `start=${stateStart}, size=${stateSectors}, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name="${IMAGE_LAYOUT.statePartLabel}"`,
    '',
  ].join('\n');
  run('sfdisk', ['--quiet', '--no-reread', '--no-tell-kernel', file], { input: table });
  const out = openSync(file, 'r+');
  writeAt(out, esp, first * SECTOR);
  writeAt(out, rootfs, rootStart * SECTOR);
  writeAt(out, state, stateStart * SECTOR);
  closeSync(out);
}

export function buildImage({ outDir = join(here, 'out'), firmwareKey = process.env.PORTICO_FIRMWARE_PUBLIC_KEY || undefined } = {}) {
  const started = process.hrtime.bigint();
  ensureHostTools();
  const cache = cacheRoot();
  mkdirSync(cache, { recursive: true });
  const base = baseLayer(cache);
  const baseSeconds = Number(process.hrtime.bigint() - started) / 1e9;

  mkdirSync(outDir, { recursive: true });
  const work = join(outDir, 'work');
  rmSync(work, { recursive: true, force: true });
  const root = join(work, 'root');
  mkdirSync(root, { recursive: true });
  run('tar', ['-x', '-p', '--numeric-owner', '-f', base.tar, '-C', root]);
  installProject(root);
  overlayRootfs(root);
  const firmwareKeyId = firmwareKey ? installFirmwareKey(root, firmwareKey) : null;
  if (!firmwareKeyId) log(`no firmware signing key (PORTICO_FIRMWARE_PUBLIC_KEY): this image refuses every firmware file`);
  const boot = bootFiles(root);

  espImage(join(work, 'esp.img'), root, boot);
  rootImage(join(work, 'root.img'), root);
  stateImage(join(work, 'state.img'));
  const image = join(outDir, 'portico.img');
  diskImage(`${image}.partial`, join(work, 'esp.img'), join(work, 'root.img'), join(work, 'state.img'));
  renameSync(`${image}.partial`, image);
  rmSync(work, { recursive: true, force: true });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const figures = {
    image: relative(process.cwd(), image),
    bytes: statSync(image).size,
    kernel: boot.version,
    firmwareKey: firmwareKeyId,
    baseCached: base.cached,
    baseSeconds: Math.round(baseSeconds * 10) / 10,
    seconds: Math.round(seconds * 10) / 10,
  };
  writeFileSync(join(outDir, 'build.json'), `${JSON.stringify(figures)}\n`);
  log(JSON.stringify(figures));
  return figures;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    buildImage();
  } catch (error) {
    console.error(`[image] failed: ${error.message}`);
    process.exit(1);
  }
}
