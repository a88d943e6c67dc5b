import { copyFile, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { isSafeText } from '@portico/schema';
import { runChecked, type CommandRunner } from './ap-agent-command.js';
import type { AgentSettings } from './ap-agent-settings.js';

/**
 * The flash step of a Debian access point, whose firmware the controller upgrades is the agent
 * itself (`portico-agent flash <settings.json> <image>`, the settings' `system.upgrade` there):
 * the verified image, copied beside the program, must run on this unit's Node and say its
 * version (`--version`) before anything is replaced; then the running program is kept beside
 * (`previousProgram`), the checked copy is renamed over it, and the service is restarted
 * (`flash.restart`), so the new version is what connects next. The downloaded image is removed
 * either way.
 */
export async function flashAgentImage(image: string, flash: AgentSettings['flash'], run: CommandRunner, node = process.execPath): Promise<string> {
  // Beside the program, with its extension: Node runs a module by its file name's extension.
  const dir = dirname(flash.program);
  const next = join(dir, `.next-${basename(flash.program)}`);
  try {
    await copyFile(image, next);
    await syncFile(next, 0o755);
    const output = await run([node, next, '--version'], { timeoutMs: 60_000 });
    const version = output.stdout.trim();
    if (output.exitCode !== 0 || !/^[^\n]{1,128}$/.test(version) || !isSafeText(version)) {
      throw new Error(`the image does not run on this unit: ${(output.stderr || output.stdout).slice(0, 300)}`);
    }
    // The version running now stays on disk, runnable (its extension kept), so the unit can be put back.
    await copyFile(flash.program, previousProgram(flash.program)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await rename(next, flash.program);
    await syncFile(dir);
    await runChecked(run, flash.restart);
    return version;
  } finally {
    await rm(next, { force: true });
    await rm(image, { force: true });
  }
}

/** Where the flash step keeps the program it replaced: `portico-agent.mjs` → `portico-agent.previous.mjs`. */
export function previousProgram(program: string): string {
  const ext = extname(program);
  return join(dirname(program), `${basename(program, ext)}.previous${ext}`);
}

async function syncFile(path: string, mode?: number): Promise<void> {
  const handle = await open(path, 'r');
  try {
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
