// Copies into <target>/node_modules exactly the files Node loads to open a database with
// better-sqlite3, the daemon bundle's one external package (apps/daemon/build.mjs): its
// JavaScript, the compiled addon and the small packages it requires at run time. The build
// tree beside them (sources, object files, the SQLite amalgamation, install-time tools) stays
// in the build stage. Usage: node deploy/container/runtime-node-modules.mjs <target>
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The daemon's own package.json: better-sqlite3 is resolved the way the daemon resolves it. */
const fromDaemon = createRequire(join(repo, 'apps', 'daemon', 'package.json'));

/** The folder of the package a file belongs to: the nearest one with a package.json naming it. */
function packageRoot(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name) return dir;
  }
  throw new Error(`no package.json above ${file}`);
}

/** Every file the module cache holds after opening an in-memory database, by package folder. */
export function loadedFiles() {
  const Database = fromDaemon('better-sqlite3');
  new Database(':memory:').prepare('select sqlite_version()').get();
  const byPackage = new Map();
  for (const file of Object.keys(fromDaemon.cache)) {
    if (!file.includes(`${sep}node_modules${sep}`)) continue;
    const root = packageRoot(file);
    // The manifest (bindings finds the addon from it) and the licence, which travels with the code.
    const licences = readdirSync(root).filter((name) => /^(licen[cs]e|copying)/i.test(name)).map((name) => join(root, name));
    if (!byPackage.has(root)) byPackage.set(root, new Set([join(root, 'package.json'), ...licences]));
    byPackage.get(root).add(file);
  }
  return byPackage;
}

export function copyRuntimeModules(target) {
  const copied = [];
  for (const [root, files] of loadedFiles()) {
    const { name } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    for (const file of files) {
      const to = join(target, 'node_modules', name, relative(root, file));
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(file, to);
      copied.push(to);
    }
  }
  return copied;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = process.argv[2];
  if (!target) {
    process.stderr.write('usage: node deploy/container/runtime-node-modules.mjs <target folder>\n');
    process.exit(2);
  }
  const copied = copyRuntimeModules(resolve(target));
  process.stdout.write(`${copied.length} files under ${resolve(target, 'node_modules')}\n`);
}
