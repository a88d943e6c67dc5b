export declare function ethernetPorts(sysNet?: string): string[];
export declare function assignment(ports: readonly string[]): { wan: string[]; lan: string[] };
export declare function envFile(chosen: { wan: readonly string[]; lan: readonly string[] }): string;
