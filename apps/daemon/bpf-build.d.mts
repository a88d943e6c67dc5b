export const QOS_INGRESS_SOURCE: string;
export const QOS_INGRESS_BUILT: string;
export function findClang(path?: string): string | null;
export function buildQosIngressObject(options?: { out?: string; clang?: string | null }): Promise<string | null>;
