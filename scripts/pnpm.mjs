// Runs the pinned pnpm: the copy npx already holds when there is one (no registry needed, so an
// install from a full store works offline), else through npx. Corepack's signature check fails
// on some machines, a pinned npx pnpm does not. Every script that needs pnpm goes through here.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const PNPM_VERSION = '10.34.9';

/** pnpm's entry script in npx's cache (`<npm cache>/_npx/<hash>/node_modules/pnpm`) at the pinned version. */
export function cachedPnpm(cache = process.env.npm_config_cache || join(homedir(), '.npm')) {
  const npx = join(cache, '_npx');
  if (!existsSync(npx)) return undefined;
  for (const dir of readdirSync(npx)) {
    const root = join(npx, dir, 'node_modules', 'pnpm');
    try {
      const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
      if (version === PNPM_VERSION && existsSync(join(root, 'bin', 'pnpm.cjs'))) return join(root, 'bin', 'pnpm.cjs');
    } catch {
      // Not a pnpm install (another npx package, or a partial one).
    }
  }
  return undefined;
}

export function pnpm(args, options = {}) {
  const cached = cachedPnpm();
  const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
  const [command, prefix] = cached ? [process.execPath, [cached]] : [npx, ['--yes', `pnpm@${PNPM_VERSION}`]];
  const result = spawnSync(command, [...prefix, ...args], { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit(pnpm(process.argv.slice(2)));
}
