export declare function ensureHostTools(tools?: Record<string, string>): void;
export declare function mirrorReachable(): Promise<boolean>;
export declare function installProject(root: string): void;
export declare function overlayRootfs(root: string): void;
export declare function diskImage(file: string, esp: string, rootfs: string, state: string): void;
export declare function loaderConf(): string;
export declare function slotEntry(slot: 'a' | 'b', version: string): string;
export declare function buildImage(options?: { outDir?: string; firmwareKey?: string }): { image: string; bytes: number; kernel: string; firmwareKey: string | null; baseCached: boolean; baseSeconds: number; seconds: number };
export declare function installFirmwareKey(root: string, file: string): string;
