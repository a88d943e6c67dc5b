import type { FileFormat } from '../../engine/file-format.js';
import { syntaxLines } from '../network/network-public.js';

// tc has no dry run; its script is plain `qdisc|class|filter add|replace|del dev …` lines, and
// `# reset <device>` comments that name the devices the driver clears before running it.
// A classic-BPF filter's program is the one quoted token allowed: numbers, spaces and commas.
// Slashes are for the path of an eBPF object (`bpf obj /…/qos-ingress-mark.o`).
const TC_BATCH_LINE = /^(qdisc|class|filter) (add|replace|change|del) dev [A-Za-z0-9._-]{1,15} [A-Za-z0-9 .:_/-]+( bpf bytecode "[0-9]{1,4}(,[0-9]{1,10}( [0-9]{1,10}){3})+")?$/;

/** The builtin check of a Smart QoS tc script: returns the problem or null. */
export function checkTcScript(content: string): string | null {
  const lines = syntaxLines(content);
  const bad = lines.find((l) => !TC_BATCH_LINE.test(l));
  if (bad === undefined && !/^# reset /m.test(content) && lines.length) return 'a tc script names no device it resets';
  return bad === undefined ? null : `not a tc batch command: ${JSON.stringify(bad.slice(0, 80))}`;
}

export const QOS_FORMATS: readonly FileFormat[] = [{ name: 'tc', builtin: checkTcScript }];
