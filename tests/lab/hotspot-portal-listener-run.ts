import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { ConfigSnapshot } from '../../apps/daemon/src/config/config-types.js';

const REPO = resolve(import.meta.dirname, '../..');

export interface PortalListenerOptions {
  snapshot: ConfigSnapshot;
  /** Local accounts the listener's credentials accept. */
  accounts?: Record<string, { password: string; plan: string }>;
  /** No accounting timers: `tick()` runs each round. */
  manual?: boolean;
}

/** hotspot-portal-listener.ts running in a gateway namespace, and the lines it prints. */
export interface PortalListener {
  /** The next printed line that starts with `prefix` (taken, so each is returned once). */
  nextLine(prefix: string, seconds?: number): Promise<string>;
  /** One accounting round. */
  tick(): Promise<void>;
  /** The expiry reminder list. */
  reminderList(): Promise<Array<{ ip: string; username: string; state: string }>>;
  stop(): Promise<void>;
}

/**
 * Bundles the listener like the daemon is bundled (esbuild comes with the daemon's build tools),
 * starts it in `gw` for the LAN 192.168.11.0/24 with the portal on 2050, and waits until it listens.
 */
export async function startPortalListener(gw: string, work: string, options: PortalListenerOptions): Promise<PortalListener> {
  const { build } = createRequire(join(REPO, 'apps/daemon/package.json'))('esbuild') as { build(options: Record<string, unknown>): Promise<unknown> };
  // Written below the daemon's node_modules so that its dependencies resolve from the bundle.
  const cache = join(REPO, 'apps/daemon/node_modules/.cache/portico-lab');
  mkdirSync(cache, { recursive: true });
  const bundle = join(cache, `${basename(work)}-portal-listener.mjs`);
  await build({
    entryPoints: [join(REPO, 'tests/lab/hotspot-portal-listener.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    // The engine's guessing limit keeps its counts in SQLite: the native module stays outside
    // the bundle, as in the daemon's, and is found from where the bundle is written.
    external: ['better-sqlite3'],
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  const input = join(work, 'listener-input.json');
  const portalDir = join(REPO, 'apps/portal/dist');
  writeFileSync(input, JSON.stringify({ ...options, port: 2050, portalDir, gateway: '192.168.11.1', first: '192.168.11.2', last: '192.168.11.254' }));
  const child: ChildProcess = spawn('ip', ['netns', 'exec', gw, process.execPath, bundle, input], { stdio: ['pipe', 'pipe', 'inherit'] });

  const printed: string[] = [];
  let wake: (() => void) | undefined;
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    printed.push(...lines);
    wake?.();
  });
  const exited = new Promise<never>((_, fail) => child.once('exit', (code) => fail(new Error(`portal listener exited ${code}`))));
  exited.catch(() => undefined);

  const nextLine = async (prefix: string, seconds = 20): Promise<string> => {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const index = printed.findIndex((line) => line.startsWith(prefix));
      if (index >= 0) return printed.splice(index, 1)[0]!;
      if (Date.now() > deadline) throw new Error(`portal listener never printed ${prefix}`);
      await Promise.race([new Promise<void>((r) => ((wake = r), setTimeout(r, 200))), exited]);
    }
  };
  await nextLine('ready', 30);
  return {
    nextLine,
    async tick() {
      child.stdin!.write('tick\n');
      await nextLine('ticked');
    },
    async reminderList() {
      child.stdin!.write('list\n');
      return JSON.parse((await nextLine('list ')).slice('list '.length));
    },
    async stop() {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(bundle, { force: true });
    },
  };
}
