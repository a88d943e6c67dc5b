import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandRunner } from '../../engine/command-runner.js';
import type { RenderedFile } from '../../engine/engine-types.js';
import { loadQosScript } from '../../domains/qos/qos-load.js';
import { tcDelta } from '../../domains/qos/qos-tc.js';

export class ActivationError extends Error {
  constructor(
    readonly target: string,
    readonly detail: string,
  ) {
    super(`applying ${target} failed: ${detail}`);
  }
}

/**
 * Makes installed files live on a Debian-style system: `ip -batch`, `sysctl -p`, `nft -f`
 * (one atomic transaction per ruleset file) and a dnsmasq the daemon supervises. Files are
 * activated in the order given, which the renderers choose (links and addresses before
 * routes, rules and the firewall).
 */
export function createLinuxActivator(options: {
  root: string;
  run: CommandRunner;
  dnsmasqBinary?: string;
  /** ip batch files whose failing lines are expected (links that exist, tables not made yet). */
  tolerantBatches?: ReadonlySet<string>;
  /** Prepended to the supervised service's command (the lab runs it inside a namespace). */
  spawnPrefix?: readonly string[];
  /** Files read by the daemon itself rather than a tool, by target: called with the content. */
  consumers?: ReadonlyMap<string, (content: string) => void>;
}) {
  let dnsmasq: ChildProcess | null = null;
  let dnsmasqConf: string | null = null;

  async function stopDnsmasq(): Promise<void> {
    const child = dnsmasq;
    dnsmasq = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((done) => {
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  }

  async function startDnsmasq(conf: string): Promise<void> {
    await stopDnsmasq();
    const [command, ...prefix] = options.spawnPrefix ?? [];
    const pidFile = join(options.root, 'run/portico/dnsmasq.pid');
    await rm(pidFile, { force: true });
    const argv = [options.dnsmasqBinary ?? 'dnsmasq', '--keep-in-foreground', `--conf-file=${conf}`, `--pid-file=${pidFile}`];
    const child = spawn(command ?? argv[0]!, command ? [...prefix, ...argv] : argv.slice(1), {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    // dnsmasq writes its pid file once its sockets are bound: that is the moment it serves.
    // A bad configuration or a port in use makes it exit instead.
    const exited = new Promise<number>((done) => child.once('exit', (code) => done(code ?? 1)));
    const deadline = Date.now() + 5000;
    for (;;) {
      const code = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), 10))]);
      if (code !== null) throw new ActivationError(conf, `dnsmasq exited (${code}): ${stderr.slice(0, 500)}`);
      if (await readFile(pidFile, 'utf8').then((text) => text.trim() !== '', () => false)) break;
      if (Date.now() > deadline) throw new ActivationError(conf, 'dnsmasq did not become ready');
    }
    dnsmasq = child;
    dnsmasqConf = conf;
  }

  // The tc script last made live per file: a change of leaf classes only is applied as a delta.
  const liveTc = new Map<string, string>();

  async function applyTc(file: RenderedFile, path: string): Promise<void> {
    const previous = liveTc.get(file.target);
    const delta = previous === undefined ? null : tcDelta(previous, file.content);
    liveTc.delete(file.target);
    if (delta) {
      if (delta.length) {
        const deltaPath = `${path}.delta`;
        await writeFile(deltaPath, `${delta.join('\n')}\n`);
        try {
          await runOrThrow(file.target, ['tc', '-batch', deltaPath]);
        } finally {
          await rm(deltaPath, { force: true });
        }
      }
    } else {
      const failure = await loadQosScript(options.run, path, file.content);
      if (failure !== null) throw new ActivationError(file.target, failure);
    }
    liveTc.set(file.target, file.content);
  }

  async function runOrThrow(target: string, argv: string[]): Promise<string> {
    const result = await options.run(argv);
    if (result.exitCode !== 0) throw new ActivationError(target, (result.stderr || result.stdout).slice(0, 2000));
    return result.stderr;
  }

  return {
    async activate(files: readonly RenderedFile[]): Promise<void> {
      for (const file of files) {
        const path = join(options.root, file.target);
        switch (file.check) {
          case 'ip-batch':
            if (options.tolerantBatches?.has(file.target)) await options.run(['ip', '-force', '-batch', path]);
            else await runOrThrow(file.target, ['ip', '-batch', path]);
            break;
          case 'sysctl':
            await runOrThrow(file.target, ['sysctl', '-q', '-p', path]);
            break;
          case 'nft':
            await runOrThrow(file.target, ['nft', '-f', path]);
            break;
          case 'dnsmasq':
            await startDnsmasq(path);
            break;
          case 'tc':
            await applyTc(file, path);
            break;
          default:
            options.consumers?.get(file.target)?.(file.content);
            break;
        }
      }
    },
    /** Restarts supervision after a daemon restart: the installed dnsmasq config is reused. */
    async ensureDnsmasq(conf: string): Promise<void> {
      if (!dnsmasq || dnsmasqConf !== conf) await startDnsmasq(conf);
    },
    async stop(): Promise<void> {
      await stopDnsmasq();
    },
  };
}
export type LinuxActivator = ReturnType<typeof createLinuxActivator>;
