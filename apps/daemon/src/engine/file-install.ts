import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CommandRunner } from './command-runner.js';
import type { FileChecker, RenderedFile } from './engine-types.js';
import { checkUci } from '../drivers/openwrt/uci-check.js';
import { checkXl2tpd } from '../domains/network/network-vpn.js';
import { checkPppdOptions, checkPppSecret } from '../domains/network/network-vpn-pppd.js';
import { checkSwanctl } from '../domains/network/network-vpn-swanctl.js';

export class FileCheckError extends Error {
  constructor(
    readonly target: string,
    readonly checker: FileChecker,
    readonly detail: string,
  ) {
    super(`${target} failed its ${checker} check: ${detail}`);
  }
}

/** How a checker is run on a candidate file; `null` means the checker is not available here. */
export type CheckCommand = (path: string) => readonly string[] | null;

/** The real checkers of the linux driver, run on the candidate before it replaces anything. */
export const LINUX_CHECKS: Record<FileChecker, CheckCommand | 'builtin'> = {
  nft: (path) => ['nft', '-c', '-f', path],
  dnsmasq: (path) => ['dnsmasq', '--test', `--conf-file=${path}`],
  'ip-batch': 'builtin',
  sysctl: 'builtin',
  uci: 'builtin',
  tc: 'builtin',
  // pppd, xl2tpd and strongSwan have no dry run that works without starting them: strict
  // structural checkers of our own (domains/network/network-vpn*.ts).
  pppd: 'builtin',
  'ppp-secret': 'builtin',
  xl2tpd: 'builtin',
  swanctl: 'builtin',
  none: 'builtin',
};

const STRUCTURAL_CHECKS: Partial<Record<FileChecker, (content: string) => string[]>> = {
  pppd: checkPppdOptions,
  'ppp-secret': checkPppSecret,
  xl2tpd: checkXl2tpd,
  swanctl: checkSwanctl,
};

const IP_BATCH_LINE = /^(-[46] )?(link|address|addr|route|rule|neigh) [A-Za-z0-9 .:/_@-]+$/;
// Keys in dotted or slash form (slashes let interface names carry dots: net/ipv4/conf/eth0.35/…).
const SYSCTL_LINE = /^[a-z0-9_]+([./][A-Za-z0-9_.@-]+)+ = [0-9a-z ]+$/;

// tc has no dry run; its script is plain `qdisc|class|filter add|replace|del dev …` lines, and
// `# reset <device>` comments that name the devices the driver clears before running it.
// A classic-BPF filter's program is the one quoted token allowed: numbers, spaces and commas.
// Slashes are for the path of an eBPF object (`bpf obj /…/qos-ingress-mark.o`).
const TC_BATCH_LINE = /^(qdisc|class|filter) (add|replace|change|del) dev [A-Za-z0-9._-]{1,15} [A-Za-z0-9 .:_/-]+( bpf bytecode "[0-9]{1,4}(,[0-9]{1,10}( [0-9]{1,10}){3})+")?$/;

/** Checks of our own for formats without a dry-run tool: every line must be plain syntax. */
export function builtinCheck(checker: FileChecker, content: string): string | null {
  if (content.includes('\0')) return 'NUL byte';
  const lines = content.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
  if (checker === 'ip-batch') {
    const bad = lines.find((l) => !IP_BATCH_LINE.test(l));
    return bad === undefined ? null : `not an ip batch command: ${JSON.stringify(bad.slice(0, 80))}`;
  }
  if (checker === 'uci') return checkUci(content);
  const structural = STRUCTURAL_CHECKS[checker];
  if (structural) return structural(content)[0] ?? null;
  if (checker === 'tc') {
    const bad = lines.find((l) => !TC_BATCH_LINE.test(l));
    if (bad === undefined && !/^# reset /m.test(content) && lines.length) return 'a tc script names no device it resets';
    return bad === undefined ? null : `not a tc batch command: ${JSON.stringify(bad.slice(0, 80))}`;
  }
  if (checker === 'sysctl') {
    const bad = lines.find((l) => !SYSCTL_LINE.test(l));
    return bad === undefined ? null : `not a sysctl setting: ${JSON.stringify(bad.slice(0, 80))}`;
  }
  return null;
}

async function writeDurably(path: string, content: string, mode: number): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncDir(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Puts rendered files in place under `root`: every changed file is written to a temporary
 * file beside its target and checked; only when ALL pass are they renamed over their targets
 * (atomic per file, fsynced). A file whose content is unchanged is left alone. Returns the
 * files that changed, in input order.
 */
export async function installFiles(
  files: readonly RenderedFile[],
  options: { root: string; run: CommandRunner; checks: Record<FileChecker, CheckCommand | 'builtin'> },
): Promise<RenderedFile[]> {
  const staged: Array<{ file: RenderedFile; tmp: string; dest: string }> = [];
  try {
    for (const file of files) {
      const dest = join(options.root, file.target);
      const current = await readFile(dest, 'utf8').catch(() => null);
      if (current === file.content) continue;
      await mkdir(dirname(dest), { recursive: true });
      const tmp = `${dest}.new-${randomBytes(4).toString('hex')}`;
      await writeDurably(tmp, file.content, file.mode ?? 0o644);
      staged.push({ file, tmp, dest });
      const check = options.checks[file.check];
      if (check === 'builtin') {
        const problem = builtinCheck(file.check, file.content);
        if (problem) throw new FileCheckError(file.target, file.check, problem);
      } else {
        const argv = check(tmp);
        if (argv) {
          const result = await options.run(argv);
          if (result.exitCode !== 0) throw new FileCheckError(file.target, file.check, (result.stderr || result.stdout).slice(0, 2000));
        }
      }
    }
    for (const { tmp, dest } of staged) {
      await rename(tmp, dest);
      await syncDir(dirname(dest));
    }
    return staged.map((s) => s.file);
  } catch (error) {
    await Promise.all(staged.map(({ tmp }) => rm(tmp, { force: true })));
    throw error;
  }
}
