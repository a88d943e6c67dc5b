import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../src/engine/command-runner.js';
import { checkDeviceCertificate, serialFromCertificate, WirelessDevicePki, WirelessPkiError } from '../src/domains/wireless/controller/wireless-device-pki.js';

const OPENSSL = '/usr/bin/openssl';
const serial = '0a1b2c3d4e5f';

describe('wireless device certificate authority (real OpenSSL)', () => {
  let root: string;
  let pki: WirelessDevicePki;
  let other: WirelessDevicePki;
  let authority: X509Certificate;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'wireless-pki-'));
    pki = new WirelessDevicePki(join(root, 'ca'), runCommand, OPENSSL);
    other = new WirelessDevicePki(join(root, 'other'), runCommand, OPENSSL);
    authority = await pki.ensureAuthority();
    await other.ensureAuthority();
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('creates an EC P-256 CA once, its key readable by the owner only', async () => {
    expect(authority.ca).toBe(true);
    expect(authority.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(authority.verify(authority.publicKey)).toBe(true);
    expect(statSync(pki.caKeyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, 'ca')).mode & 0o777).toBe(0o700);
    const again = await pki.ensureAuthority();
    expect(again.fingerprint256).toBe(authority.fingerprint256);
  });

  it('issues a device certificate naming the serial, chained to the CA', async () => {
    const issued = await pki.issueDevice(serial);
    const cert = new X509Certificate(issued.certificate);
    expect(cert.subject).toBe(`CN=${serial}`);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(authority)).toBe(true);
    expect(cert.verify(authority.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(issued.key))).toBe(true);
    expect(serialFromCertificate(issued.certificate)).toBe(serial);
    expect(checkDeviceCertificate(cert, authority, () => false)).toEqual({ ok: true, serial });
    expect(checkDeviceCertificate(cert, authority, (s) => s === serial)).toEqual({ ok: false, reason: 'revoked' });
    expect(checkDeviceCertificate(cert, authority, () => false, Date.parse(cert.validTo) + 1000)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a certificate from another CA and a server certificate as a device', async () => {
    const foreign = await other.issueDevice(serial);
    const cert = new X509Certificate(foreign.certificate);
    expect(cert.checkIssued(authority)).toBe(false);
    expect(checkDeviceCertificate(cert, authority, () => false)).toEqual({ ok: false, reason: 'notIssued' });

    const server = await pki.issueServer(['controller.lan', '192.168.1.1']);
    expect(statSync(server.keyFile).mode & 0o777).toBe(0o600);
    const serverCert = new X509Certificate(readFileSync(server.certFile));
    expect(serverCert.checkIssued(authority)).toBe(true);
    expect(serverCert.subjectAltName).toContain('DNS:controller.lan');
    expect(serverCert.checkIP('192.168.1.1')).toBe('192.168.1.1');
    expect(checkDeviceCertificate(serverCert, authority, () => false)).toEqual({ ok: false, reason: 'notClient' });
    expect(checkDeviceCertificate('not a certificate', authority, () => false)).toEqual({ ok: false, reason: 'unreadable' });
  });

  it('refuses subjects that are not serials and arguments that are not names', async () => {
    expect(serialFromCertificate(authority)).toBeNull();
    await expect(pki.issueDevice('0A1B2C3D4E5F')).rejects.toBeInstanceOf(WirelessPkiError);
    await expect(pki.issueDevice('/CN=x/O=y')).rejects.toBeInstanceOf(WirelessPkiError);
    await expect(pki.issueServer(['bad name,DNS:evil'])).rejects.toBeInstanceOf(WirelessPkiError);
  });
});
