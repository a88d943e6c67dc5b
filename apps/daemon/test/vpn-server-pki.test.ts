import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCommand } from '../src/engine/command-runner.js';
import { OpenvpnPki } from '../src/domains/vpn-server/vpn-server-pki.js';

const dir = mkdtempSync(join(tmpdir(), 'portico-ovpn-pki-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** openssl's own verdict on a certificate against the CA, with or without the CRL. */
async function verify(pki: OpenvpnPki, cert: string, crl: boolean): Promise<string> {
  const file = join(dir, 'probe.crt');
  writeFileSync(file, cert);
  const args = ['openssl', 'verify', '-CAfile', pki.files.caCert, ...(crl ? ['-crl_check', '-CRLfile', pki.files.crl] : []), file];
  const result = await runCommand(args);
  return `${result.stdout}${result.stderr}`;
}

describe('OpenVPN PKI', () => {
  const pki = new OpenvpnPki(join(dir, 'pki'));

  test('CA, server and client certificates verify with openssl; keys are 0600 in a 0700 folder', async () => {
    await pki.ensure();
    const alice = await pki.issueClient('alice');
    expect(await verify(pki, alice.certificate, true)).toContain(': OK');
    expect(await verify(pki, readFileSync(pki.files.serverCert, 'utf8'), true)).toContain(': OK');
    expect(statSync(pki.files.dir).mode & 0o777).toBe(0o700);
    for (const file of [pki.files.caKey, pki.files.serverKey, pki.clientKeyFile('alice')]) {
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    const text = (await runCommand(['openssl', 'x509', '-noout', '-text', '-in', join(dir, 'probe.crt')])).stdout;
    expect(text).toContain('TLS Web Server Authentication');
  });

  test('a revoked client fails the CRL check; others still pass', async () => {
    const bob = await pki.issueClient('bob');
    const carol = await pki.issueClient('carol');
    await pki.writeCrl([{ serial: bob.serial, revoked: Date.now() }]);
    expect(await verify(pki, bob.certificate, true)).toContain('certificate revoked');
    expect(await verify(pki, carol.certificate, true)).toContain(': OK');
  });

  test('client names that could reach a path are refused', () => {
    expect(() => pki.clientKeyFile('../x')).toThrow();
    expect(() => pki.clientKeyFile('a-b')).toThrow();
  });
});
