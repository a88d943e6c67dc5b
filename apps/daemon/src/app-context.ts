import type { Db } from './plugins/db-open.js';
import type { Settings } from './settings.js';
import type { AccountStore } from './plugins/account-store.js';
import type { SessionStore } from './plugins/session-store.js';
import type { LoginLimiter } from './plugins/login-limiter.js';
import type { PasswordHasher } from './plugins/password-hash.js';
import type { LiveStatusSource } from './drivers/live-source.js';
import type { ConfigService } from './config/config-service.js';
import type { BackupPart } from './config/backup-part.js';
import type { LogBook } from './config/log-book.js';
import type { SignalBus } from './config/domain-signals.js';
import type { RenderEnv } from './config/domain-module.js';

/** The services a domain works with; built once in app.ts and passed down. */
export interface AppContext {
  settings: Settings;
  db: Db;
  /** Milliseconds since the epoch; a test passes a clock it can move. */
  now: () => number;
  accounts: AccountStore;
  sessions: SessionStore;
  limiter: LoginLimiter;
  passwords: PasswordHasher;
  live: LiveStatusSource;
  /** The one path of configuration writes: journal, apply, confirmation. */
  config: ConfigService;
  /** The modules' parts of the configuration backup, by module name, in domain-list order. */
  backupParts: ReadonlyMap<string, BackupPart>;
  /** The device's named logs: domains append to them or provide their own entries (config/log-book.ts). */
  logs: LogBook;
  /** Run-time signals one domain raises and others follow (config/domain-signals.ts). */
  signals: SignalBus;
  /** Every module's values for an extension point, in domain-list order (runtime services read them too). */
  contributions: RenderEnv['contributions'];
}
