import { randomBytes, X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { SERIAL_PATTERN } from '@portico/schema';
import type { CommandRunner } from '../../../engine/command-runner.js';
import { loadX509 } from '../../../engine/x509-loader.js';

/**
 * The device certificate authority of the wireless controller: an EC P-256 CA that issues
 * each AP a client certificate whose subject CN is its serial, and the controller its TLS
 * server certificate. Devices prove their serial with it; the controller reads the serial back
 * from the certificate (serialFromCertificate) and refuses revoked serials at connect.
 * OpenSSL does the key and certificate work, through the command runner.
 */

const CA_SUBJECT = '/CN=Portico wireless device CA';
const CA_DAYS = 7300;
const LEAF_DAYS = 3650;
/** extendedKeyUsage OIDs (RFC 5280 §4.2.1.12). */
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** OpenSSL configuration (extension sections) for the certificates this CA makes. */
function opensslConfig(altNames: readonly string[]): string {
  return [
    '[req]',
    'distinguished_name = dn',
    '[dn]',
    '[ca_ext]',
    'basicConstraints = critical,CA:TRUE,pathlen:0',
    'keyUsage = critical,keyCertSign,cRLSign',
    'subjectKeyIdentifier = hash',
    '[device_ext]',
    'basicConstraints = critical,CA:FALSE',
    'keyUsage = critical,digitalSignature',
    'extendedKeyUsage = clientAuth',
    'authorityKeyIdentifier = keyid',
    '[server_ext]',
    'basicConstraints = critical,CA:FALSE',
    'keyUsage = critical,digitalSignature',
    'extendedKeyUsage = serverAuth',
    'authorityKeyIdentifier = keyid',
    ...(altNames.length > 0 ? [`subjectAltName = ${altNames.join(',')}`] : []),
    '',
  ].join('\n');
}

/** The longest certificate request accepted (an RSA-4096 request is under 2 KB in PEM). */
export const DEVICE_CSR_MAX = 8192;
const CSR_PEM = /^-----BEGIN CERTIFICATE REQUEST-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE REQUEST-----\r?\n?$/;

/**
 * Why a device's certificate request is refused: not one PEM request, its self-signature does
 * not verify, its subject is not exactly CN=<serial>, or its key is weak.
 */
export type DeviceCsrProblem = 'format' | 'signature' | 'subject' | 'key';

/** Checks a device's PKCS #10 request (OpenWiFi devices make their key and send a request). */
export async function checkDeviceCsr(serial: string, pem: string): Promise<DeviceCsrProblem | null> {
  if (pem.length > DEVICE_CSR_MAX || !CSR_PEM.test(pem.trim() + '\n')) return 'format';
  const { Pkcs10CertificateRequest } = await loadX509();
  let request: InstanceType<typeof Pkcs10CertificateRequest>;
  try {
    request = new Pkcs10CertificateRequest(pem.trim());
  } catch {
    return 'format';
  }
  try {
    if (!(await request.verify())) return 'signature';
  } catch {
    return 'signature';
  }
  if (request.subject !== `CN=${serial}`) return 'subject';
  const algorithm = request.publicKey.algorithm as { name: string; namedCurve?: string; modulusLength?: number };
  const strong =
    (algorithm.name === 'ECDSA' && ['P-256', 'P-384'].includes(algorithm.namedCurve ?? '')) ||
    (algorithm.name.startsWith('RSA') && (algorithm.modulusLength ?? 0) >= 2048);
  return strong ? null : 'key';
}

export class WirelessPkiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WirelessPkiError';
  }
}

/** Writes a private key readable by its owner only, never briefly wider. */
async function writePrivate(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await rm(temporary, { force: true });
  await writeFile(temporary, text, { mode: 0o600, flag: 'wx' });
  await rename(temporary, file);
}

async function writePublic(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o644 });
  await rename(temporary, file);
}

export interface IssuedCertificate {
  /** PEM private key (EC P-256). */
  key: string;
  /** PEM certificate signed by the device CA. */
  certificate: string;
}

export class WirelessDevicePki {
  readonly caKeyFile: string;
  readonly caCertFile: string;
  readonly serverKeyFile: string;
  readonly serverCertFile: string;

  constructor(
    /** Private folder (0700) for the CA and the server key. */
    private readonly dir: string,
    private readonly run: CommandRunner,
    private readonly opensslPath = 'openssl',
  ) {
    this.caKeyFile = join(dir, 'device-ca.key');
    this.caCertFile = join(dir, 'device-ca.pem');
    this.serverKeyFile = join(dir, 'controller.key');
    this.serverCertFile = join(dir, 'controller.pem');
  }

  /** Creates the CA key and self-signed certificate unless both exist; returns the CA certificate. */
  async ensureAuthority(): Promise<X509Certificate> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    if (!existsSync(this.caKeyFile) || !existsSync(this.caCertFile)) {
      await this.inWorkDir(async (work) => {
        const key = await this.newKey();
        const keyFile = join(work, 'ca.key');
        await writePrivate(keyFile, key);
        const certificate = await this.runOpenssl(
          ['req', '-new', '-x509', '-config', join(work, 'openssl.cnf'), '-extensions', 'ca_ext', '-key', keyFile, '-subj', CA_SUBJECT, '-days', String(CA_DAYS), '-sha256', '-set_serial', certificateSerial()],
        );
        await writePrivate(this.caKeyFile, key);
        await writePublic(this.caCertFile, certificate);
      });
    }
    return this.authority();
  }

  async authority(): Promise<X509Certificate> {
    return new X509Certificate(await readFile(this.caCertFile));
  }

  /** A client certificate for the device with this serial (CN = serial), with its new key. */
  async issueDevice(serial: string): Promise<IssuedCertificate> {
    if (!SERIAL_PATTERN.test(serial)) throw new WirelessPkiError('a device serial is 12 lower-case hex digits');
    return this.issue(`/CN=${serial}`, 'device_ext', []);
  }

  /**
   * A client certificate for a device that made its own key: its request (checked by
   * checkDeviceCsr first) signed with the device extensions; the key never leaves the device.
   */
  async signDevice(serial: string, csrPem: string): Promise<string> {
    if (!SERIAL_PATTERN.test(serial)) throw new WirelessPkiError('a device serial is 12 lower-case hex digits');
    const problem = await checkDeviceCsr(serial, csrPem);
    if (problem) throw new WirelessPkiError(`csr.${problem}`);
    return this.inWorkDir(async (work) => {
      const csrFile = join(work, 'device.csr');
      await writeFile(csrFile, `${csrPem.trim()}\n`, { mode: 0o600 });
      return this.runOpenssl([
        'x509', '-req', '-in', csrFile, '-CA', this.caCertFile, '-CAkey', this.caKeyFile, '-set_serial', certificateSerial(),
        '-days', String(LEAF_DAYS), '-sha256', '-extfile', join(work, 'openssl.cnf'), '-extensions', 'device_ext',
      ]);
    });
  }

  /**
   * The controller's TLS server certificate for the names and addresses devices reach it by;
   * its key and certificate are written beside the CA (key 0600).
   */
  async issueServer(names: readonly string[]): Promise<{ keyFile: string; certFile: string }> {
    if (names.length === 0) throw new WirelessPkiError('the server certificate needs at least one name or address');
    const altNames = names.map((name) => {
      if (isIP(name)) return `IP:${name}`;
      if (HOST_NAME.test(name)) return `DNS:${name}`;
      throw new WirelessPkiError('not a host name or an IP address');
    });
    const issued = await this.issue(`/CN=${names[0]}`, 'server_ext', altNames);
    await writePrivate(this.serverKeyFile, issued.key);
    await writePublic(this.serverCertFile, issued.certificate);
    return { keyFile: this.serverKeyFile, certFile: this.serverCertFile };
  }

  private async issue(subject: string, extensions: 'device_ext' | 'server_ext', altNames: readonly string[]): Promise<IssuedCertificate> {
    return this.inWorkDir(async (work) => {
      const key = await this.newKey();
      const keyFile = join(work, 'leaf.key');
      const csrFile = join(work, 'leaf.csr');
      await writePrivate(keyFile, key);
      const config = join(work, 'openssl.cnf');
      await writeFile(config, opensslConfig(altNames), { mode: 0o600 });
      await writeFile(csrFile, await this.runOpenssl(['req', '-new', '-config', config, '-key', keyFile, '-subj', subject, '-sha256']), { mode: 0o600 });
      const certificate = await this.runOpenssl([
        'x509', '-req', '-in', csrFile, '-CA', this.caCertFile, '-CAkey', this.caKeyFile, '-set_serial', certificateSerial(),
        '-days', String(LEAF_DAYS), '-sha256', '-extfile', config, '-extensions', extensions,
      ]);
      return { key, certificate };
    });
  }

  private newKey(): Promise<string> {
    return this.runOpenssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-pkeyopt', 'ec_param_enc:named_curve']);
  }

  /** A private scratch folder (0700) with the OpenSSL configuration, removed afterwards. */
  private async inWorkDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(join(this.dir, 'issue-'));
    try {
      await writeFile(join(dir, 'openssl.cnf'), opensslConfig([]), { mode: 0o600 });
      return await work(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async runOpenssl(args: readonly string[]): Promise<string> {
    const result = await this.run([this.opensslPath, ...args]);
    if (result.exitCode !== 0) throw new WirelessPkiError(`openssl ${args[0]} failed: ${result.stderr.split('\n')[0] ?? ''}`);
    return `${result.stdout.trim()}\n`;
  }
}

/** A random positive 128-bit certificate serial (RFC 5280 §4.1.2.2). */
function certificateSerial(): string {
  const bytes = randomBytes(16);
  bytes[0]! &= 0x7f;
  return `0x${bytes.toString('hex')}`;
}

function asCertificate(cert: string | Buffer | X509Certificate): X509Certificate | null {
  if (cert instanceof X509Certificate) return cert;
  try {
    return new X509Certificate(cert);
  } catch {
    return null;
  }
}

/** The device serial a certificate names: its one subject CN, when it is a serial. */
export function serialFromCertificate(cert: string | Buffer | X509Certificate): string | null {
  const x509 = asCertificate(cert);
  if (!x509) return null;
  const names = x509.subject.split('\n').filter((line) => line.startsWith('CN='));
  if (names.length !== 1) return null;
  const serial = names[0]!.slice(3);
  return SERIAL_PATTERN.test(serial) ? serial : null;
}

export type DeviceCertificateCheck =
  | { ok: true; serial: string }
  | { ok: false; reason: 'unreadable' | 'notIssued' | 'notClient' | 'subject' | 'expired' | 'revoked' };

/**
 * Whether a client certificate lets a device in: issued by the device CA, a client certificate,
 * within its validity, naming a serial that is not revoked. The TLS transport calls it for the
 * peer certificate before it hands the link to the controller.
 */
export function checkDeviceCertificate(
  cert: string | Buffer | X509Certificate,
  authority: X509Certificate,
  isRevoked: (serial: string) => boolean,
  now = Date.now(),
): DeviceCertificateCheck {
  const x509 = asCertificate(cert);
  if (!x509) return { ok: false, reason: 'unreadable' };
  if (x509.ca || !x509.checkIssued(authority) || !x509.verify(authority.publicKey)) return { ok: false, reason: 'notIssued' };
  if (!(x509.keyUsage ?? []).includes(CLIENT_AUTH)) return { ok: false, reason: 'notClient' };
  if (now < Date.parse(x509.validFrom) || now > Date.parse(x509.validTo)) return { ok: false, reason: 'expired' };
  const serial = serialFromCertificate(x509);
  if (!serial) return { ok: false, reason: 'subject' };
  return isRevoked(serial) ? { ok: false, reason: 'revoked' } : { ok: true, serial };
}
