export const L2PROBE_SOURCE: string;
export const L2PROBE_BUILT: string;
export function buildL2Probe(options?: { out?: string; cc?: string | null }): Promise<string | null>;
export function findCompiler(path?: string): string | null;
export function compileHelper(options: { source: string; out: string; cc?: string | null; libs?: string[] }): Promise<string | null>;
