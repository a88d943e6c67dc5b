export declare const NETWORK_HOOK_FILES: ReadonlyArray<Readonly<{ file: string; executable: boolean }>>;
