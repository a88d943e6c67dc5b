export const TLSTERM_SOURCE: string;
export const TLSTERM_BUILT: string;
export function buildTlsTerm(options?: { out?: string; cc?: string | null }): Promise<string | null>;
