import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { emailServer } from '@portico/schema';
import { defineDomain } from '../../config/domain-module.js';
import { signal } from '../../config/domain-signals.js';
import { realScheduler, type Scheduler } from '../../config/config-types.js';
import { runCommand, type CommandRunner } from '../../engine/command-runner.js';
import { SECURITY_EVENT_RECORDED } from '../health/health-public.js';
import { EMAIL_MIGRATIONS, MailQueue } from './email-notice-queue.js';
import { registerEmailRoutes } from './email-notice-routes.js';
import { EmailNotifier } from './email-notice-service.js';
import { SmtpTransport } from './email-notice-smtp.js';

export interface EmailNoticeDeps {
  run?: CommandRunner;
  schedule?: Scheduler;
  /** PEM file the SMTP server's certificate is checked against (a test's own CA). */
  caFile?: string;
  timeoutSeconds?: number;
  queueCap?: number;
  /** The device's name in subjects and Message-IDs. */
  device?: () => string;
}

/**
 * Security → e-mail notice (spec §2 /security/emailnotice, §7 `sysconf/emailinfo`): the SMTP
 * server and the recipients are entities (generic routes); each recorded security event is
 * queued for its recipients and sent through curl, retried while the server is down.
 */
/** The SMTP settings were saved: what waits is tried again at once (the server may be back). */
const EMAIL_SETTINGS_SAVED = signal<void>('email-notice.settings-saved');

export const emailNoticeModule = defineDomain({
  name: 'email-notice',
  pages: ['emailnotice'],
  migrations: EMAIL_MIGRATIONS,
  bindings: () => ({
    [emailServer.name]: { rules: { afterWrite: (_change, context) => context.app.signals.emit(EMAIL_SETTINGS_SAVED, undefined) } },
  }),
  register: (app, ctx, deps: EmailNoticeDeps | undefined) => {
    const given = deps ?? {};
    const tempDir = join(ctx.settings.stateDir, 'email');
    mkdirSync(tempDir, { recursive: true, mode: 0o700 });
    const transport = new SmtpTransport({ run: given.run ?? runCommand, tempDir, caFile: given.caFile, timeoutSeconds: given.timeoutSeconds });
    const queue = new MailQueue(ctx.db, given.queueCap);
    const notifier = new EmailNotifier(ctx, queue, transport, given.schedule ?? realScheduler, given.device);
    const unfollow = ctx.signals.on(SECURITY_EVENT_RECORDED, (event) => notifier.onEvent(event));
    const unsaved = ctx.signals.on(EMAIL_SETTINGS_SAVED, () => notifier.kick({ now: true }));
    registerEmailRoutes(app, ctx, notifier);
    // Messages left by the previous run go out once the daemon is up.
    app.addHook('onReady', async () => notifier.kick());
    return {
      async stop() {
        unfollow();
        unsaved();
        notifier.stop();
        await notifier.idle();
      },
    };
  },
});
