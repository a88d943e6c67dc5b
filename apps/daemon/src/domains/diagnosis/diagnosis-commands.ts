import { isHostTarget, type DiagnosisStart } from '@portico/schema';

/** Probes per hop of a route trace: busybox traceroute takes at most a few. */
export const TRACE_PROBES_MAX = 5;

/**
 * The argument vector of a diagnosis run. The target was validated as a host name or an
 * address (so it never starts with `-`); `--` ends the options all the same. ping's `-w`
 * deadline bounds the whole run.
 */
export function diagnosisArgv(run: DiagnosisStart): string[] {
  if (!isHostTarget(run.target)) throw new Error('not a diagnosis target');
  if (run.tool === 'ping') {
    const deadline = run.count + run.wait;
    return ['ping', '-n', '-c', String(run.count), '-W', String(run.wait), '-w', String(deadline), ...(run.ifname ? ['-I', run.ifname] : []), '--', run.target];
  }
  const probes = Math.min(run.count, TRACE_PROBES_MAX);
  return [
    'busybox',
    'traceroute',
    '-n',
    '-q',
    String(probes),
    '-m',
    String(run.maxhops),
    '-w',
    String(run.wait),
    ...(run.ifname ? ['-i', run.ifname] : []),
    run.target,
  ];
}

/** The longest a run may take before it is stopped, ms: its own bounds plus a margin. */
export function diagnosisLimitMs(run: DiagnosisStart): number {
  const seconds = run.tool === 'ping' ? run.count + run.wait : run.maxhops * Math.min(run.count, TRACE_PROBES_MAX) * run.wait;
  return (seconds + 10) * 1000;
}
