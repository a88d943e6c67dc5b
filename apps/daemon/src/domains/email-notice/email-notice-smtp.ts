import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isEmailAddress, isHostname, isIpv4, isSafeText, type EmailServer } from '@portico/schema';
import type { CommandRunner } from '../../engine/command-runner.js';

/**
 * Delivery to the SMTP server through curl (smtp:// with STARTTLS required, or smtps://): the
 * message goes on curl's stdin, the credentials in a curl config file of mode 0600 in a 0700
 * folder of the state directory, removed after the run, so the password never shows in
 * /proc/<pid>/cmdline. Every value that reaches the command line is checked again here.
 */

export interface SmtpResult {
  delivered: boolean;
  /** curl's one-line error (its exit code and the server's status when it gave one). */
  error: string;
  /** A 5xx answer or refused credentials: trying again will not help. */
  permanent: boolean;
}

export interface SmtpTransportOptions {
  run: CommandRunner;
  /** Where the short-lived credential file is made (the state directory). */
  tempDir: string;
  /** PEM bundle the server's certificate is checked against instead of the system's (a test's CA). */
  caFile?: string;
  timeoutSeconds?: number;
}

/** A value of the curl config file: a quoted string with `\` and `"` escaped (curl's own syntax). */
function configString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

// curl's exit codes where the server refused for good (67 login denied) or the request was bad.
const PERMANENT_EXITS = new Set([3, 67]);

/** The server's own reply code in curl's message, e.g. `RCPT failed: 550`. */
function replyCode(text: string): number | undefined {
  const match = /failed: (\d{3})/.exec(text);
  return match ? Number(match[1]) : undefined;
}

function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 300);
}

export function smtpUrl(settings: Pick<EmailServer, 'server' | 'port' | 'security'>): string {
  if (!isIpv4(settings.server) && !isHostname(settings.server)) throw new Error('not a server name');
  if (!Number.isInteger(settings.port) || settings.port < 1 || settings.port > 65535) throw new Error('not a port');
  return `${settings.security === 'tls' ? 'smtps' : 'smtp'}://${settings.server}:${settings.port}`;
}

/** The argument vector; the credential file's path is passed when the server needs a user. */
export function curlArguments(settings: EmailServer, to: string, options: { configFile?: string; caFile?: string; timeoutSeconds?: number }): string[] {
  for (const address of [settings.sender, to]) {
    if (!isEmailAddress(address)) throw new Error('not a plain e-mail address');
  }
  const timeout = String(options.timeoutSeconds ?? 30);
  const argv = ['curl', '--silent', '--show-error', '--url', smtpUrl(settings), '--mail-from', settings.sender, '--mail-rcpt', to, '--upload-file', '-'];
  argv.push('--connect-timeout', timeout, '--max-time', String(Number(timeout) * 2));
  // Never fall back to plain text when STARTTLS was asked for.
  if (settings.security === 'starttls') argv.push('--ssl-reqd');
  if (settings.security !== 'none') {
    if (!settings.verify) argv.push('--insecure');
    else if (options.caFile) argv.push('--cacert', options.caFile);
  }
  if (options.configFile) argv.push('--config', options.configFile);
  return argv;
}

export class SmtpTransport {
  constructor(private readonly options: SmtpTransportOptions) {}

  async send(settings: EmailServer, to: string, message: string): Promise<SmtpResult> {
    if (settings.user !== '' && (!isSafeText(settings.user) || !isSafeText(settings.password))) {
      return { delivered: false, error: 'credentials hold control characters', permanent: true };
    }
    let folder: string | undefined;
    try {
      let configFile: string | undefined;
      if (settings.user !== '') {
        folder = await mkdtemp(join(this.options.tempDir, 'smtp-'));
        configFile = join(folder, 'credentials');
        await writeFile(configFile, `user = ${configString(`${settings.user}:${settings.password}`)}\n`, { mode: 0o600, flag: 'wx' });
      }
      const argv = curlArguments(settings, to, { configFile, caFile: this.options.caFile, timeoutSeconds: this.options.timeoutSeconds });
      const result = await this.options.run(argv, { input: message, timeoutMs: ((this.options.timeoutSeconds ?? 30) * 2 + 5) * 1000 });
      if (result.exitCode === 0) return { delivered: true, error: '', permanent: false };
      const error = oneLine(result.stderr) || `curl exit ${result.exitCode}`;
      const code = replyCode(error);
      return { delivered: false, error, permanent: PERMANENT_EXITS.has(result.exitCode) || (code !== undefined && code >= 500) };
    } catch (error) {
      return { delivered: false, error: oneLine(error instanceof Error ? error.message : String(error)), permanent: false };
    } finally {
      if (folder) await rm(folder, { recursive: true, force: true });
    }
  }
}
