export function median(values: number[]): number;
export function report(name: string, figures: Record<string, unknown>, budgets: Record<string, number>): boolean;
export function reportError(name: string, error: unknown): void;
