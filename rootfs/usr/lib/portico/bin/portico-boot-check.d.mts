export declare function answers(url: string): Promise<boolean>;
export declare function blessRunningSlot(cmdline: string, entries: string): string | null;
export declare function bootedCountedEntry(efivars: string): string | null;
export declare function onTrial(cmdline: string, entries: string, efivars: string): boolean;
