// The image's HEALTHCHECK: asks the console port for the console's start page, as a browser
// would, and exits 0 only on 200. A daemon that is up but lost its console bundle answers 503
// (plugins/static-files.ts), so this proves the listener and the bundle together. Reads the
// same PORTICO_* settings as the daemon; a daemon serving HTTPS (PORTICO_TLS_CERT) is asked over
// HTTPS without checking its certificate, which is the administrator's own.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';

const TIMEOUT_MS = 4000;

export function healthRequest(env = process.env) {
  const tls = Boolean(env.PORTICO_TLS_CERT?.trim());
  const port = Number(env.PORTICO_PORT?.trim() || 8080);
  return { url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/`, tls };
}

/** Resolves to the status code of the console's start page, or rejects on no answer. */
export function consoleStatus(env = process.env) {
  const { url, tls } = healthRequest(env);
  const request = tls ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', timeout: TIMEOUT_MS, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  consoleStatus().then(
    (status) => {
      if (status !== 200) process.stderr.write(`console answered ${status}\n`);
      process.exit(status === 200 ? 0 : 1);
    },
    (error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
