import type { CommandRunner } from '../../engine/command-runner.js';
import { qosScriptDirectives } from './qos-tc.js';

/**
 * Loads a Smart QoS tc script whole, as the drivers do when it cannot go as a delta: the
 * devices it owns lose their root and ingress qdiscs first (a device QoS no longer shapes is
 * left clean, and every load starts from nothing), the IFB devices it names are made and
 * raised, then `tc -batch` runs it. Resolves to null, or to what failed.
 */
export async function loadQosScript(run: CommandRunner, path: string, content: string): Promise<string | null> {
  const directives = qosScriptDirectives(content);
  for (const dev of directives.reset) {
    // Either may be absent: nothing to clear.
    await run(['tc', 'qdisc', 'del', 'dev', dev, 'root']);
    await run(['tc', 'qdisc', 'del', 'dev', dev, 'ingress']);
  }
  for (const dev of directives.ifb) {
    // Kept across loads: an existing one refuses the add, and is brought up all the same.
    await run(['ip', 'link', 'add', 'name', dev, 'type', 'ifb']);
    const up = await run(['ip', 'link', 'set', 'dev', dev, 'up']);
    if (up.exitCode !== 0) return `ip link set dev ${dev} up: ${(up.stderr || up.stdout).slice(0, 500)}`;
  }
  const result = await run(['tc', '-batch', path]);
  return result.exitCode === 0 ? null : (result.stderr || result.stdout).slice(0, 2000);
}
