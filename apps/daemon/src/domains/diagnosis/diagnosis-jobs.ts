import { randomUUID } from 'node:crypto';
import { execa, type ResultPromise } from 'execa';
import type { DiagnosisJob, DiagnosisStart } from '@portico/schema';
import { diagnosisArgv, diagnosisLimitMs } from './diagnosis-commands.js';

/** Lines kept per run; a run that prints more keeps its first lines and a note. */
export const JOB_LINES_MAX = 2000;
/** Runs kept (finished ones are forgotten oldest first) and runs at once. */
export const JOBS_KEPT = 16;
export const JOBS_RUNNING_MAX = 4;

interface Job {
  id: string;
  owner: string;
  tool: DiagnosisStart['tool'];
  target: string;
  lines: string[];
  partial: string;
  running: boolean;
  stopped: boolean;
  code: number | null;
  child: ResultPromise | null;
}

export type Spawn = (argv: readonly string[], limitMs: number) => ResultPromise;

/** execa with an argument array and no shell; stdout and stderr arrive as they are written. */
export const spawnDiagnosis: Spawn = (argv, limitMs) =>
  execa(argv[0]!, argv.slice(1), { shell: false, reject: false, all: true, buffer: false, timeout: limitMs, stdin: 'ignore', env: { LC_ALL: 'C' } });

/**
 * Diagnosis runs (ping, route trace): each a child process whose output lines are kept as they
 * come, read by offset (the console polls), stoppable. A run belongs to the account that
 * started it.
 */
export class DiagnosisJobs {
  private jobs = new Map<string, Job>();

  constructor(private readonly spawn: Spawn = spawnDiagnosis) {}

  start(owner: string, run: DiagnosisStart): { id: string } | { busy: true } {
    if ([...this.jobs.values()].filter((j) => j.running).length >= JOBS_RUNNING_MAX) return { busy: true };
    const job: Job = { id: randomUUID(), owner, tool: run.tool, target: run.target, lines: [], partial: '', running: true, stopped: false, code: null, child: null };
    this.jobs.set(job.id, job);
    this.forgetOld();
    const child = this.spawn(diagnosisArgv(run), diagnosisLimitMs(run));
    job.child = child;
    child.all?.setEncoding('utf8');
    child.all?.on('data', (chunk: string) => this.take(job, chunk));
    void child.then((result) => {
      if (job.partial) this.push(job, job.partial);
      job.partial = '';
      job.running = false;
      job.child = null;
      job.code = job.stopped ? null : (result.exitCode ?? null);
    });
    return { id: job.id };
  }

  read(owner: string, id: string, offset: number): DiagnosisJob | undefined {
    const job = this.jobs.get(id);
    if (!job || job.owner !== owner) return undefined;
    const from = Math.max(0, Math.min(offset, job.lines.length));
    return { id: job.id, tool: job.tool, target: job.target, running: job.running, code: job.code, stopped: job.stopped, lines: job.lines.slice(from), next: job.lines.length };
  }

  stop(owner: string, id: string): boolean {
    const job = this.jobs.get(id);
    if (!job || job.owner !== owner) return false;
    if (job.running && job.child) {
      job.stopped = true;
      job.child.kill('SIGTERM');
    }
    return true;
  }

  async close(): Promise<void> {
    const running = [...this.jobs.values()].filter((j) => j.child);
    for (const job of running) job.child!.kill('SIGKILL');
    await Promise.all(running.map((job) => job.child!.catch(() => undefined)));
  }

  private take(job: Job, chunk: string): void {
    const text = job.partial + chunk;
    const parts = text.split('\n');
    job.partial = parts.pop() ?? '';
    for (const line of parts) this.push(job, line);
  }

  private push(job: Job, line: string): void {
    if (job.lines.length >= JOB_LINES_MAX) return;
    // The tools' output is shown as text; control characters never reach the page.
    // eslint-disable-next-line no-control-regex
    job.lines.push(line.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '').slice(0, 500));
  }

  private forgetOld(): void {
    const finished = [...this.jobs.values()].filter((j) => !j.running);
    while (this.jobs.size > JOBS_KEPT && finished.length) this.jobs.delete(finished.shift()!.id);
  }
}
