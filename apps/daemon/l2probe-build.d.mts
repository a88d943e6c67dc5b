export const L2PROBE_SOURCE: string;
export const L2PROBE_BUILT: string;
export function buildL2Probe(options?: { out?: string; cc?: string | null }): Promise<string | null>;
