import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { CommandRunner } from '../../engine/command-runner.js';
import type { RenderedFile } from '../../engine/engine-types.js';

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
    const argv = [options.dnsmasqBinary ?? 'dnsmasq', '--keep-in-foreground', `--conf-file=${conf}`, `--pid-file=${join(options.root, 'run/portico/dnsmasq.pid')}`];
    const child = spawn(command ?? argv[0]!, command ? [...prefix, ...argv] : argv.slice(1), {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    // dnsmasq exits at once on a bad configuration or a port in use; a running one stays.
    const early = await new Promise<number | null>((done) => {
      const timer = setTimeout(() => done(null), 300);
      child.once('exit', (code) => {
        clearTimeout(timer);
        done(code ?? 1);
      });
    });
    if (early !== null) throw new ActivationError(conf, `dnsmasq exited (${early}): ${stderr.slice(0, 500)}`);
    dnsmasq = child;
    dnsmasqConf = conf;
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
          default:
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
