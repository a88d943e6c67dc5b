import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { execa, type ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from '../../apps/daemon/launch-flags.mjs';
import {
  bindMounts,
  copyPaths,
  dockerIgnored,
  lastInstruction,
  parseDockerfile,
  stageChain,
  stageEnv,
  type Dockerfile,
  type Instruction,
  type Stage,
} from './dockerfile-parse.js';

/**
 * Checks of docker-compose.yml and the Dockerfile it builds, without a container engine: the
 * file against the Compose Specification's schema, every file it and the image builds read,
 * the daemon settings it sets, and the image itself: its build stage's commands run here on the
 * build context alone, its files laid out by its own COPY lines, its command and HEALTHCHECK run. `docker compose config` runs too where a
 * compose client is installed.
 */

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const COMPOSE_FILE = join(REPO, 'docker-compose.yml');
const SETTINGS_SOURCE = join(REPO, 'apps', 'daemon', 'src', 'settings.ts');

interface BuildSpec {
  context?: string;
  dockerfile?: string;
  target?: string;
}

interface ComposeService {
  build?: string | BuildSpec;
  image?: string;
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | { target: number; published?: string | number; host_ip?: string })[];
  volumes?: (string | { type: string; source?: string; target: string })[];
  networks?: string[] | Record<string, unknown>;
  profiles?: string[];
}

interface ComposeFile {
  version?: unknown;
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, unknown>;
}

const compose = parseYaml(readFileSync(COMPOSE_FILE, 'utf8')) as ComposeFile;
const services = Object.entries(compose.services);

function buildOf(service: ComposeService): { context: string; dockerfile: string; target?: string } | undefined {
  if (!service.build) return undefined;
  const spec: BuildSpec = typeof service.build === 'string' ? { context: service.build } : service.build;
  const context = resolve(REPO, spec.context ?? '.');
  return { context, dockerfile: resolve(context, spec.dockerfile ?? 'Dockerfile'), target: spec.target };
}

function environmentOf(service: ComposeService): Record<string, string> {
  const env = service.environment ?? {};
  const pairs = Array.isArray(env) ? env.map((e) => e.split('=', 2) as [string, string]) : Object.entries(env);
  return Object.fromEntries(pairs.map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]));
}

function readDockerfile(path: string): Dockerfile {
  return parseDockerfile(readFileSync(path, 'utf8'));
}

// --- What apps/daemon/src/settings.ts reads, and what it accepts -------------------------------

interface SettingRule {
  name: string;
  /** positiveInt(env, NAME, fallback, max). */
  integer?: { fallback: number; max: number };
  /** "NAME must be one of ${LIST.join(...)}": the LIST constant's strings. */
  oneOf?: string[];
}

function constantNumber(expression: string): number {
  // Products of integer literals (`30 * 86400`) are the only arithmetic settings.ts uses.
  const factors = expression.split('*').map((f) => f.trim());
  if (!factors.every((f) => /^\d+$/.test(f))) throw new Error(`cannot read the bound ${expression} in settings.ts`);
  return factors.reduce((product, f) => product * Number(f), 1);
}

function settingRules(source: string): Map<string, SettingRule> {
  const rules = new Map<string, SettingRule>();
  for (const [, name] of source.matchAll(/env(?:\.|, ')(PORTICO_[A-Z0-9_]+)/g)) rules.set(name!, { name: name! });
  for (const [, name, fallback, max] of source.matchAll(/positiveInt\(env, '(PORTICO_[A-Z0-9_]+)', (\d+), ([^)]+)\)/g)) {
    rules.get(name!)!.integer = { fallback: Number(fallback), max: constantNumber(max!) };
  }
  for (const [, name, list] of source.matchAll(/(PORTICO_[A-Z0-9_]+) must be one of \$\{(\w+)\.join/g)) {
    const declared = new RegExp(`const ${list} = \\[([^\\]]*)\\]`).exec(source);
    if (!declared) throw new Error(`settings.ts: no constant ${list} for ${name}`);
    rules.get(name!)!.oneOf = [...declared[1]!.matchAll(/'([^']*)'/g)].map((m) => m[1]!);
  }
  return rules;
}

const SETTINGS = settingRules(readFileSync(SETTINGS_SOURCE, 'utf8'));

function settingProblem(rule: SettingRule | undefined, name: string, value: string): string | null {
  if (!rule) return `${name} is not a setting apps/daemon/src/settings.ts reads`;
  if (rule.integer) {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > rule.integer.max) return `${name}=${value}: an integer from 1 to ${rule.integer.max}`;
  }
  if (rule.oneOf && !rule.oneOf.includes(value.trim())) return `${name}=${value}: one of ${rule.oneOf.join(', ')}`;
  return null;
}

// --- The image as built: the Dockerfile's stages, mapped onto this checkout ----------------------

const ROOT_DOCKERFILE = readDockerfile(join(REPO, 'Dockerfile'));
const BUILD_STAGE = ROOT_DOCKERFILE.stages.find((s) => s.name === 'build')!;
/** The build stage's WORKDIR is where the repository is copied: paths under it are this checkout. */
const BUILD_WORKDIR = lastInstruction([BUILD_STAGE], 'WORKDIR')!.args;
const porticoBuild = buildOf(compose.services.portico!)!;
const SIM_STAGES = stageChain(ROOT_DOCKERFILE, porticoBuild.target!);
const IMAGE_WORKDIR = lastInstruction(SIM_STAGES, 'WORKDIR')!.args;

/** The daemon's entry as apps/daemon/package.json starts it, from the repository root. */
function daemonEntry(): string {
  const { scripts } = JSON.parse(readFileSync(join(REPO, 'apps', 'daemon', 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [command, entry] = scripts.start.split(/\s+/);
  expect(command).toBe('node');
  return `apps/daemon/${entry}`;
}

const composeClient = await findComposeClient();

describe('docker-compose.yml', () => {
  it('follows the Compose Specification (its JSON schema), without the obsolete version key', () => {
    const schema = JSON.parse(readFileSync(join(REPO, 'tests', 'packaging', 'compose-spec', 'compose-spec.json'), 'utf8'));
    // strictTypes off: the schema puts object keywords under oneOf branches without a type.
    const validate = new Ajv2020({ allErrors: true, strict: true, strictTypes: false }).compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
    expect(compose).not.toHaveProperty('version');

    // The schema bites: an unknown service key is refused.
    expect(validate({ services: { portico: { ...compose.services.portico, imagee: 'x' } } })).toBe(false);
  });

  it('mounts only files that exist and named volumes it declares', () => {
    const declared = Object.keys(compose.volumes ?? {});
    const mounts = services.flatMap(([name, s]) => (s.volumes ?? []).map((v) => ({ name, volume: v })));
    expect(mounts.length).toBeGreaterThan(0);
    for (const { name, volume } of mounts) {
      const source = typeof volume === 'string' ? volume.split(':')[0]! : volume.source ?? '';
      const isPath = source.startsWith('.') || isAbsolute(source);
      if (isPath) expect(existsSync(resolve(REPO, source)), `${name} mounts ${source}`).toBe(true);
      else expect(declared, `${name} uses volume ${source}`).toContain(source);
    }
  });

  it("builds from contexts whose Dockerfiles, targets and copied files exist and aren't ignored", () => {
    const builds = services.flatMap(([name, s]) => (buildOf(s) ? [{ name, ...buildOf(s)! }] : []));
    expect(builds.map((b) => b.name)).toEqual(expect.arrayContaining(['portico', 'portico-linux', 'openldap', 'client']));
    let checked = 0;
    for (const { name, context, dockerfile, target } of builds) {
      expect(statSync(context).isDirectory(), `${name}: context ${context}`).toBe(true);
      const file = readDockerfile(dockerfile);
      if (target) expect(file.stages.map((s) => s.name), `${name}: target ${target}`).toContain(target);
      const ignorePath = join(context, '.dockerignore');
      const ignore = existsSync(ignorePath) ? readFileSync(ignorePath, 'utf8') : '';
      const fromContext = file.stages.flatMap((stage) =>
        stage.instructions.flatMap((i) => [
          ...(i.keyword === 'COPY' && !copyPaths(i).from ? copyPaths(i).sources : []),
          ...bindMounts(i).filter((m) => !m.from).map((m) => m.source!),
        ]),
      );
      checked += fromContext.length;
      for (const source of fromContext) {
        expect(existsSync(join(context, source)), `${name}: ${source} in ${relative(REPO, context) || '.'}`).toBe(true);
        if (source !== '.') expect(dockerIgnored(ignore, source), `${name}: ${source} is left out by .dockerignore`).toBe(false);
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('sets only real PORTICO_* settings (services and image), each with a value settings.ts accepts', () => {
    expect(SETTINGS.get('PORTICO_PORT')?.integer).toEqual({ fallback: 8080, max: 65535 });
    expect(SETTINGS.get('PORTICO_DRIVER')?.oneOf).toEqual(['sim', 'linux', 'openwrt']);
    const set = services.flatMap(([name, s]) => Object.entries(environmentOf(s)).map(([key, value]) => ({ name, key, value })));
    expect(set.length).toBeGreaterThan(0);
    // The image's own ENV sets settings too (the allocator variables of launch-flags.mjs aside).
    for (const target of ['sim', 'linux']) {
      const imageEnv = Object.entries(stageEnv(stageChain(ROOT_DOCKERFILE, target))).filter(([key]) => !(key in DAEMON_ENV));
      expect(imageEnv.length).toBeGreaterThan(0);
      set.push(...imageEnv.map(([key, value]) => ({ name: `Dockerfile ${target}`, key, value })));
    }
    for (const { name, key, value } of set) expect(settingProblem(SETTINGS.get(key), key, value), name).toBeNull();
    // The same checks refuse what the daemon refuses.
    expect(settingProblem(SETTINGS.get('PORTICO_DRIVER'), 'PORTICO_DRIVER', 'docker')).not.toBeNull();
    expect(settingProblem(SETTINGS.get('PORTICO_PORT'), 'PORTICO_PORT', '70000')).not.toBeNull();
    expect(settingProblem(SETTINGS.get('PORTICO_NOPE'), 'PORTICO_NOPE', '1')).not.toBeNull();
  });

  it('publishes the console on PORTICO_PORT, on this machine (127.0.0.1) only', () => {
    const published = services.filter(([, s]) => s.ports?.length);
    expect(published.map(([name]) => name)).toContain('portico');
    for (const [name, service] of published) {
      const build = buildOf(service)!;
      const imageEnv = stageEnv(stageChain(readDockerfile(build.dockerfile), build.target!));
      const env = { ...imageEnv, ...environmentOf(service) };
      const consolePort = Number(env.PORTICO_PORT ?? SETTINGS.get('PORTICO_PORT')!.integer!.fallback);
      const mappings = service.ports!.map((p) => {
        if (typeof p !== 'string') return { hostIp: p.host_ip ?? '', container: Number(p.target) };
        const parts = p.split(':');
        return { hostIp: parts.length === 3 ? parts[0]! : '', container: Number(parts.at(-1)!.split('/')[0]) };
      });
      expect(mappings.map((m) => m.container), name).toContain(consolePort);
      for (const m of mappings) expect(m.hostIp, `${name} publishes ${m.container}`).toBe('127.0.0.1');
      const exposed = stageChain(readDockerfile(build.dockerfile), build.target!).flatMap((s) => s.instructions.filter((i) => i.keyword === 'EXPOSE'));
      expect(exposed.flatMap((i) => i.args.split(/\s+/)).map(Number)).toEqual(expect.arrayContaining(mappings.map((m) => m.container)));
    }
  });

  it.skipIf(!composeClient.argv)(`passes \`${composeClient.argv?.join(' ') ?? 'docker compose'} config --quiet\`${composeClient.argv ? '' : ` (skipped: ${composeClient.why})`}`, async () => {
    const [command, ...args] = composeClient.argv!;
    const result = await execa(command!, [...args, '--profile', 'linux', 'config', '--quiet'], { cwd: REPO, reject: false });
    expect(result.exitCode, result.stderr).toBe(0);
  });
});

/** `docker compose` (the plugin) or a `docker-compose` of the Compose v2 line, else why neither. */
async function findComposeClient(): Promise<{ argv?: string[]; why?: string }> {
  const plugin = await execa('docker', ['compose', 'version', '--short'], { reject: false });
  if (plugin.exitCode === 0) return { argv: ['docker', 'compose'] };
  const standalone = await execa('docker-compose', ['version', '--short'], { reject: false });
  if (standalone.exitCode === 0 && /^v?2\./.test(standalone.stdout.trim())) return { argv: ['docker-compose'] };
  const found = standalone.exitCode === 0 ? `docker-compose ${standalone.stdout.trim()} predates the Compose Specification it uses` : 'no docker-compose';
  return { why: `no \`docker compose\` plugin on this machine, ${found}` };
}

describe('Dockerfile', () => {
  it('starts the entry point `npm start` runs, with the launch flags and environment of launch-flags.mjs', () => {
    const entry = daemonEntry();
    expect(readFileSync(join(REPO, 'scripts', 'project-start.mjs'), 'utf8')).toContain(`'${entry}'`);
    expect(IMAGE_WORKDIR).toBe('/app');
    for (const target of ['sim', 'linux']) {
      const chain = stageChain(ROOT_DOCKERFILE, target);
      expect(lastInstruction(chain, 'CMD')?.exec, target).toEqual(['node', ...DAEMON_NODE_FLAGS, entry]);
      expect(stageEnv(chain), target).toMatchObject(DAEMON_ENV);
      expect(stageEnv(chain).PORTICO_DRIVER, target).toBe(target);
    }
    // The sim image runs unprivileged; the linux one as root (the Dockerfile says why).
    expect(lastInstruction(stageChain(ROOT_DOCKERFILE, 'sim'), 'USER')?.args).toBe('portico');
    expect(lastInstruction(stageChain(ROOT_DOCKERFILE, 'linux'), 'USER')).toBeUndefined();
  });

  it('copies into the image what a build makes: the daemon entry, its files, the console and portal bundles', () => {
    const fromBuild = SIM_STAGES.flatMap((s) => s.instructions.filter((i) => i.keyword === 'COPY' && copyPaths(i).from === 'build')).map(copyPaths);
    const sources = fromBuild.flatMap((c) => c.sources);
    const entryDir = dirname(daemonEntry());
    for (const dir of [entryDir, 'apps/console/dist', 'apps/portal/dist']) expect(sources).toContain(`${BUILD_WORKDIR}/${dir}`);
    for (const source of sources.filter((s) => s.startsWith(`${BUILD_WORKDIR}/`))) {
      const local = join(REPO, relative(BUILD_WORKDIR, source));
      expect(existsSync(local), `${source} (run the build first: npm run build)`).toBe(true);
    }
    expect(existsSync(join(REPO, daemonEntry()))).toBe(true);
    expect(existsSync(join(REPO, 'apps', 'console', 'dist', 'index.html'))).toBe(true);
    expect(existsSync(join(REPO, 'apps', 'portal', 'dist', 'index.html'))).toBe(true);
  });
});

// --- The image built without an engine: the build stage's own commands, then the image's ----------

/** A port free on loopback now (the daemon takes it a moment later). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** The files `docker build .` sends: this checkout's files (committed or not) less .dockerignore. */
async function contextFiles(): Promise<string[]> {
  const listed = await execa('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: REPO });
  const ignore = readFileSync(join(REPO, '.dockerignore'), 'utf8');
  return listed.stdout.split('\n').filter((f) => f !== '' && existsSync(join(REPO, f)) && !dockerIgnored(ignore, f));
}

/** Runs the RUN lines of Debian's package installer (root and the Debian mirror: not here). */
const installsDebianPackages = (run: Instruction) => basename(run.exec?.[1] ?? '') === 'debian-packages.mjs';

/**
 * Carries out a stage's COPY (from the context or the build stage) and WORKDIR lines with `root`
 * standing for the image's /, and with `runs` its RUN lines, each with its own argument array
 * and this machine's node. Left out: installing Debian packages, the node binary (this
 * machine's), and the RUN lines of the image stages, which set up its user and state folder on
 * the image's system and must not run on this one (the test gives the daemon an unprivileged
 * user and its own state folder instead).
 */
async function carryOut(stage: Stage, root: string, context: readonly string[], buildRoot: string, runs: boolean): Promise<void> {
  let workdir = '/';
  const inImage = (path: string, base = root) => join(base, isAbsolute(path) ? path : join(workdir, path));
  for (const instruction of stage.instructions) {
    if (instruction.keyword === 'WORKDIR') {
      workdir = instruction.args;
      mkdirSync(inImage('.'), { recursive: true });
    } else if (instruction.keyword === 'COPY') {
      const { from, sources, dest } = copyPaths(instruction);
      for (const source of sources) {
        if (from === 'build' && source === '/usr/local/bin/node') continue;
        if (from === 'build') cpSync(join(buildRoot, source), inImage(dest), { recursive: true });
        else if (source === '.') for (const file of context) cpSync(join(REPO, file), join(inImage(dest), file));
        else cpSync(join(REPO, source), dest.endsWith('/') ? join(inImage(dest), basename(source)) : inImage(dest), { recursive: true });
      }
    } else if (runs && instruction.keyword === 'RUN' && instruction.exec && !installsDebianPackages(instruction)) {
      const [command, ...args] = instruction.exec.map((a) => (isAbsolute(a) ? join(root, a) : a));
      // Only the project's own Node steps run on this machine; a system command would change it.
      expect(['node', 'npm'], `RUN ${instruction.exec.join(' ')}`).toContain(command);
      await execa(command === 'node' ? process.execPath : command!, args, { cwd: inImage('.') });
    }
  }
}

describe('the image built here from its Dockerfile (no engine), its command run', () => {
  let root: string | undefined;
  let daemon: ResultPromise | undefined;
  afterAll(async () => {
    daemon?.kill('SIGTERM');
    await daemon?.catch(() => undefined);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('builds from the context alone, starts with the CMD and environment of the portico service, prints the initial admin password and passes the HEALTHCHECK', { timeout: 600_000 }, async () => {
    // Made here, not when the file is collected: a run that filters this test out leaves nothing.
    root = mkdtempSync(join(tmpdir(), 'portico-image-'));
    const buildRoot = join(root, 'build');
    const imageRoot = join(root, 'image');
    const context = await contextFiles();
    // The install, the project's build and the runtime node_modules, from the build context only.
    await carryOut(BUILD_STAGE, buildRoot, context, buildRoot, true);
    for (const stage of SIM_STAGES) await carryOut(stage, imageRoot, context, buildRoot, false);
    const app = join(imageRoot, IMAGE_WORKDIR);
    expect(existsSync(join(app, daemonEntry()))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))).toBe(true);
    // Only what runs: not the addon's sources nor the SQLite amalgamation it was built from.
    expect(existsSync(join(app, 'node_modules', 'better-sqlite3', 'deps'))).toBe(false);

    const stateDir = join(root, 'state');
    mkdirSync(stateDir);
    // As the image's USER does, an unprivileged user runs it when this test can switch to one.
    const nobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    if (nobody.uid !== undefined) {
      chmodSync(root, 0o755);
      chownSync(stateDir, nobody.uid, nobody.gid!);
    }

    const env = {
      ...stageEnv(SIM_STAGES),
      ...environmentOf(compose.services.portico!),
      // A private state folder and loopback ports in place of the volume and published ports.
      PORTICO_STATE_DIR: stateDir,
      PORTICO_HOST: '127.0.0.1',
      PORTICO_PORT: String(await freePort()),
      PORTICO_PORTAL_PORT: String(await freePort()),
      PORTICO_WIRELESS_PORT: String(await freePort()),
      PATH: process.env.PATH,
    };
    const [command, ...args] = lastInstruction(SIM_STAGES, 'CMD')!.exec!;
    expect(command).toBe('node');
    let output = '';
    // Nothing above the image copy holds a node_modules the daemon could fall back on.
    daemon = execa(process.execPath, args, { cwd: app, env, extendEnv: false, ...nobody, reject: false, all: true, buffer: false });
    daemon.all!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });

    await expect.poll(() => output).toMatch(/Initial admin password: \S+/);
    expect(existsSync(join(stateDir, 'initial-admin-password'))).toBe(true);
    if (nobody.uid !== undefined) expect(statSync(join(stateDir, 'initial-admin-password')).uid).toBe(nobody.uid);
    expect(daemon.exitCode).toBeNull();

    const health = lastInstruction(SIM_STAGES, 'HEALTHCHECK')!.exec!;
    expect(health[0]).toBe('node');
    const check = health.slice(1).map((a) => (isAbsolute(a) ? join(imageRoot, a) : a));
    await expect
      .poll(async () => (await execa(process.execPath, check, { cwd: app, env, extendEnv: false, ...nobody, reject: false })).exitCode)
      .toBe(0);

    // The check fails where no console answers.
    const silent = await execa(process.execPath, check, { cwd: app, env: { ...env, PORTICO_PORT: String(await freePort()) }, extendEnv: false, reject: false });
    expect(silent.exitCode).toBe(1);
  });
});
