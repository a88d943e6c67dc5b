import { randomBytes, webcrypto } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as X509 from '@peculiar/x509';
import { isOpenvpnClientName } from '@portico/schema';
import { loadX509 } from '../../engine/x509-loader.js';

/**
 * The OpenVPN server's own certificate authority (spec §3, /system/caconfiguration): an EC
 * P-256 CA that signs the server certificate and one client certificate per client name, and
 * the CRL the running server checks every handshake against. Certificates are made in-process
 * with @peculiar/x509 over Node's WebCrypto, so issuing a client costs no process start.
 *
 * Everything lives in one folder of the daemon's state (0700); private keys are 0600 files and
 * leave the device only inside a profile the administrator downloads.
 */

const crypto = webcrypto as unknown as Crypto;

const KEY_ALGORITHM: EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGNING: EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' } as EcdsaParams;
const DAY_MS = 86_400_000;
const CA_DAYS = 7300;
const LEAF_DAYS = 3650;
/** No client name can take it: client names have no hyphen (spec §5). */
export const OPENVPN_SERVER_CN = 'portico-openvpn-server';
const CA_NAME = 'CN=Portico OpenVPN CA';
const CRL_DAYS = 3650;

export class OpenvpnPkiError extends Error {}

export interface IssuedClient {
  serial: string;
  certificate: string;
  issued: number;
}

/** The files of the PKI folder. */
export function pkiFiles(dir: string) {
  return {
    dir,
    caKey: join(dir, 'ca.key'),
    caCert: join(dir, 'ca.crt'),
    serverKey: join(dir, 'server.key'),
    serverCert: join(dir, 'server.crt'),
    crl: join(dir, 'crl.pem'),
    clientDir: join(dir, 'clients'),
  };
}

async function writeAtomic(file: string, text: string, mode: number): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, text, { mode, flag: 'wx' });
  await chmod(temporary, mode);
  await rename(temporary, file);
}

/** A random positive 128-bit serial (RFC 5280 §4.1.2.2), as hex. */
function newSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

async function newKeys(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

async function privatePem(key: CryptoKey): Promise<string> {
  const x509 = await loadX509();
  const der = await crypto.subtle.exportKey('pkcs8', key);
  return `${x509.PemConverter.encode(der, 'PRIVATE KEY')}\n`;
}

async function importPrivate(pem: string): Promise<CryptoKey> {
  const x509 = await loadX509();
  return crypto.subtle.importKey('pkcs8', x509.PemConverter.decode(pem)[0]!, KEY_ALGORITHM, false, ['sign']);
}

export interface RevokedEntry {
  serial: string;
  revoked: number;
}

export class OpenvpnPki {
  readonly files: ReturnType<typeof pkiFiles>;

  constructor(
    dir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.files = pkiFiles(dir);
  }

  /** Creates what is missing: the CA, the server's certificate, an empty CRL. */
  async ensure(revoked: readonly RevokedEntry[] = []): Promise<void> {
    await mkdir(this.files.clientDir, { recursive: true, mode: 0o700 });
    await chmod(this.files.dir, 0o700);
    if (!existsSync(this.files.caKey) || !existsSync(this.files.caCert)) await this.createAuthority();
    if (!existsSync(this.files.serverKey) || !existsSync(this.files.serverCert)) await this.issueServer();
    if (!existsSync(this.files.crl)) await this.writeCrl(revoked);
  }

  private async createAuthority(): Promise<void> {
    const x509 = await loadX509();
    const keys = await newKeys();
    const notBefore = new Date(this.now() - DAY_MS);
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: newSerial(),
      name: CA_NAME,
      notBefore,
      notAfter: new Date(notBefore.getTime() + CA_DAYS * DAY_MS),
      signingAlgorithm: SIGNING,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    await writeAtomic(this.files.caKey, await privatePem(keys.privateKey), 0o600);
    await writeAtomic(this.files.caCert, `${cert.toString('pem')}\n`, 0o644);
    // A new authority invalidates every certificate of the old one, the server's included.
    await rm(this.files.serverCert, { force: true });
    await rm(this.files.crl, { force: true });
  }

  /** Read at each use: a restore or a new authority replaces the files under a running daemon. */
  private async authority(): Promise<{ key: CryptoKey; cert: X509.X509Certificate }> {
    const x509 = await loadX509();
    return {
      key: await importPrivate(await readFile(this.files.caKey, 'utf8')),
      cert: new x509.X509Certificate(await readFile(this.files.caCert, 'utf8')),
    };
  }

  /** A new authority (and server certificate): every certificate of the old one stops working. */
  async regenerateAuthority(): Promise<void> {
    await this.createAuthority();
    await this.issueServer();
    await this.writeCrl([]);
  }

  /** What the CA page shows of the authority. */
  async authorityInfo(): Promise<{ subject: string; notBefore: number; notAfter: number; serial: string; fingerprint: string }> {
    const { cert } = await this.authority();
    const digest = Buffer.from(await cert.getThumbprint('SHA-256')).toString('hex').toUpperCase();
    return {
      subject: cert.subject,
      notBefore: cert.notBefore.getTime(),
      notAfter: cert.notAfter.getTime(),
      serial: cert.serialNumber,
      fingerprint: digest.match(/../g)!.join(':'),
    };
  }

  async caCertificate(): Promise<string> {
    return readFile(this.files.caCert, 'utf8');
  }

  private async sign(subject: string, publicKey: CryptoKey, usage: 'server' | 'client'): Promise<{ serial: string; pem: string; issued: number }> {
    const x509 = await loadX509();
    const ca = await this.authority();
    const serial = newSerial();
    const issued = this.now();
    const notBefore = new Date(issued - DAY_MS);
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial,
      subject,
      issuer: ca.cert.subject,
      notBefore,
      notAfter: new Date(notBefore.getTime() + LEAF_DAYS * DAY_MS),
      signingAlgorithm: SIGNING,
      publicKey,
      signingKey: ca.key,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement, true),
        new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
        await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
      ],
    });
    return { serial, pem: `${cert.toString('pem')}\n`, issued };
  }

  /** "Obtain server key and certificate again": a new key pair and certificate for the server. */
  async issueServer(): Promise<void> {
    const keys = await newKeys();
    const signed = await this.sign(`CN=${OPENVPN_SERVER_CN}`, keys.publicKey, 'server');
    await writeAtomic(this.files.serverKey, await privatePem(keys.privateKey), 0o600);
    await writeAtomic(this.files.serverCert, signed.pem, 0o644);
  }

  clientKeyFile(name: string): string {
    if (!isOpenvpnClientName(name)) throw new OpenvpnPkiError('not a client name');
    return join(this.files.clientDir, `${name}.key`);
  }

  /** A client's new key pair (its key written 0600) and certificate, CN = the client's name. */
  async issueClient(name: string): Promise<IssuedClient> {
    const file = this.clientKeyFile(name);
    const keys = await newKeys();
    const signed = await this.sign(`CN=${name}`, keys.publicKey, 'client');
    await writeAtomic(file, await privatePem(keys.privateKey), 0o600);
    return { serial: signed.serial, certificate: signed.pem, issued: signed.issued };
  }

  async clientKey(name: string): Promise<string> {
    return readFile(this.clientKeyFile(name), 'utf8');
  }

  async removeClientKey(name: string): Promise<void> {
    await rm(this.clientKeyFile(name), { force: true });
  }

  /** Signs the CRL of these revocations and replaces the one the server reads, atomically. */
  async writeCrl(revoked: readonly RevokedEntry[]): Promise<void> {
    const x509 = await loadX509();
    const ca = await this.authority();
    const thisUpdate = new Date(this.now());
    const crl = await x509.X509CrlGenerator.create({
      issuer: ca.cert.subject,
      thisUpdate,
      nextUpdate: new Date(thisUpdate.getTime() + CRL_DAYS * DAY_MS),
      signingAlgorithm: SIGNING,
      signingKey: ca.key,
      entries: revoked.map((entry) => ({ serialNumber: entry.serial, revocationDate: new Date(entry.revoked), reason: x509.X509CrlReason.cessationOfOperation })),
      extensions: [await x509.AuthorityKeyIdentifierExtension.create(ca.cert)],
    });
    // OpenSSL reads CRLs under the RFC 7468 label only.
    await writeAtomic(this.files.crl, `${x509.PemConverter.encode(crl.rawData, 'X509 CRL')}\n`, 0o644);
  }
}
