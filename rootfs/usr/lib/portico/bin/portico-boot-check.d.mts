export declare function answers(url: string): Promise<boolean>;
export declare function blessRunningSlot(cmdline: string, entries: string): string | null;
