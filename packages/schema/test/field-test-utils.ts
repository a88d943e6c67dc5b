import type { z } from 'zod';

/** The first error message of a parse, or null when the value is accepted. */
export function firstError(schema: z.ZodType, value: unknown): string | null {
  const result = schema.safeParse(value);
  return result.success ? null : (result.error.issues[0]?.message ?? 'no message');
}

/** The parsed value; fails the test with the messages when the value is refused. */
export function parsed<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(`refused ${JSON.stringify(value)}: ${result.error.issues.map((i) => i.message).join(', ')}`);
  return result.data;
}
