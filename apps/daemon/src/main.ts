import { buildApp } from './app.js';
import { readSettings, SettingsError, type Settings } from './settings.js';

/** Reads the settings, builds the daemon and listens until SIGTERM or SIGINT. */
async function main(): Promise<void> {
  let settings: Settings;
  try {
    settings = readSettings();
  } catch (error) {
    if (error instanceof SettingsError) {
      process.stderr.write(`portico: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }

  const app = await buildApp(settings);
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'stopping');
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  await app.listen({ port: settings.port, host: settings.host });
}

main().catch((error: unknown) => {
  process.stderr.write(`portico: cannot start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
