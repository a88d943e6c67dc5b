export const PTY_SOURCE: string;
export const PTY_BUILT: string;
export function buildPty(options?: { out?: string; cc?: string | null }): Promise<string | null>;
