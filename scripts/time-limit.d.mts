export interface LimitOptions {
  limitMs: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  stdout?: { write(chunk: string): unknown };
}
export function runWithTimeLimit(command: string, args: string[], options: LimitOptions): Promise<{ status: number; timedOut: boolean; reported: boolean }>;
export function runBenchmark(name: string, command: string, args: string[], options: LimitOptions): Promise<boolean>;
