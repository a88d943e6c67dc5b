import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configUuidField } from '@portico/schema';
import { z } from 'zod';
import { writeFileAtomic } from './ap-agent-file-install.js';

/**
 * The configuration the radios run, kept across restarts: after a reboot the agent brings the
 * radios up from it before the controller is reachable, and reports its uuid in `connect`, so
 * the controller resends a configuration only when it has a newer one.
 */

export interface AppliedConfig {
  uuid: number;
  /** The document as the controller sent it; parsed again (deviceConfigSchema) when read. */
  config: unknown;
}

const storedSchema = z.object({ uuid: configUuidField(), config: z.unknown() });

export interface ConfigStore {
  load(): Promise<AppliedConfig | null>;
  save(applied: AppliedConfig): Promise<void>;
}

export class FileConfigStore implements ConfigStore {
  private readonly path: string;

  constructor(stateDir: string) {
    this.path = join(stateDir, 'applied-config.json');
  }

  async load(): Promise<AppliedConfig | null> {
    const text = await readFile(this.path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (text === null) return null;
    const parsed = storedSchema.safeParse(JSON.parse(text));
    return parsed.success ? { uuid: parsed.data.uuid, config: parsed.data.config } : null;
  }

  async save(applied: AppliedConfig): Promise<void> {
    await writeFileAtomic(this.path, `${JSON.stringify(applied)}\n`, 0o600);
  }
}
