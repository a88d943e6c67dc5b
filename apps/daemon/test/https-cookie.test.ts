import { describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startDaemon, tempDir } from './daemon-harness.js';

function selfSigned(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', key, '-out', cert], {
    stdio: 'ignore',
  });
  return { cert, key };
}

function postJson(port: number, path: string, body: unknown): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', rejectUnauthorized: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('over HTTPS', () => {
  test('the session cookie is Secure with the __Host- prefix', async () => {
    const dir = tempDir();
    const { cert, key } = selfSigned(dir);
    const h = await startDaemon({ env: { PORTICO_TLS_CERT: cert, PORTICO_TLS_KEY: key } });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = (h.app.server.address() as AddressInfo).port;
      const res = await postJson(port, '/api/login', { username: 'admin', password: h.initialPassword });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body).success).toBe(true);
      const cookie = String(res.headers['set-cookie']);
      expect(cookie).toMatch(/^__Host-portico_sid=[A-Za-z0-9_-]{43};/);
      expect(cookie).toMatch(/; Secure/);
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; SameSite=Strict/);
      expect(cookie).toMatch(/; Path=\//);
      expect(cookie).not.toMatch(/Domain=/);
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
