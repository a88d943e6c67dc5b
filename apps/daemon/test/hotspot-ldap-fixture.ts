import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { vi } from 'vitest';
import { tempDir } from './daemon-harness.js';

/**
 * Debian's OpenLDAP server for the LDAP sign-in tests: installed when missing (slapd and
 * ldap-utils), run in the foreground (`-d 0`, not as a daemon) on loopback ports with a
 * configuration written here (`slapd -f`), a directory loaded with slapadd, and TLS from a
 * CA and server certificate made with openssl for 127.0.0.1. Nothing listens beyond 127.0.0.1.
 */

export const SUFFIX = 'dc=example,dc=org';
export const SERVICE = { dn: `cn=reader,${SUFFIX}`, password: 'Reader-pass1' };
/** The people in the directory: uid, cn and password. */
export const PEOPLE = [
  { uid: 'alice', cn: 'Alice Liddell', password: 'Alice-pass1' },
  { uid: 'bob', cn: 'Bob Stone', password: 'Bob-pass1' },
  // Names with the characters that DNs (RFC 4514) and filters (RFC 4515) must escape.
  { uid: 'Smith, John+#1', cn: 'John Smith', password: 'Smith-pass1' },
  { uid: 'o*brien(x)', cn: 'Pat OBrien', password: 'Obrien-pass1' },
] as const;

export interface Slapd {
  dir: string;
  ldapPort: number;
  ldapsPort: number;
  /** PEM of the CA that signed the server's certificate, as lines. */
  caLines: string[];
  /** PEM of a CA that signed nothing here. */
  otherCaLines: string[];
  stop(): Promise<void>;
}

/** Installs slapd and ldap-utils from Debian when missing; returns why it could not, or null. */
export async function ensureSlapd(): Promise<string | null> {
  const needed = ['/usr/sbin/slapd', '/usr/sbin/slapadd', '/usr/bin/openssl'];
  if (needed.every((f) => existsSync(f))) return null;
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return 'slapd is not installed and cannot be installed here';
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  await execa('apt-get', ['update', '-qq'], { env, reject: false });
  // Another installation may hold dpkg's lock for a while: wait for it rather than fail.
  await execa('apt-get', ['-o', 'DPkg::Lock::Timeout=600', 'install', '-y', '-qq', 'slapd', 'ldap-utils', 'openssl'], { env, reject: false });
  return needed.every((f) => existsSync(f)) ? null : 'slapd could not be installed';
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function openssl(args: string[], cwd: string): Promise<void> {
  await execa('openssl', args, { cwd });
}

async function makeCertificates(dir: string, subjectAltName: string): Promise<void> {
  for (const name of ['ca', 'other-ca']) {
    await openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=Portico test ${name}`], dir);
  }
  writeFileSync(join(dir, 'server.ext'), `subjectAltName=${subjectAltName}\nextendedKeyUsage=serverAuth\n`);
  await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'], dir);
  await openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext'], dir);
}

function ldif(): string {
  const entries = [
    `dn: ${SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example`,
    `dn: ou=people,${SUFFIX}\nobjectClass: organizationalUnit\nou: people`,
    `dn: ${SERVICE.dn}\nobjectClass: simpleSecurityObject\nobjectClass: organizationalRole\ncn: reader\nuserPassword: ${SERVICE.password}`,
    ...PEOPLE.map((p) => {
      // The RDN is the uid; a DN value's special characters are escaped (RFC 4514).
      const rdn = p.uid.replace(/([,+"\\<>;=])/g, '\\$1');
      return `dn: uid=${rdn},ou=people,${SUFFIX}\nobjectClass: inetOrgPerson\nuid: ${p.uid}\ncn: ${p.cn}\nsn: ${p.cn.split(' ').at(-1)}\nuserPassword: ${p.password}`;
    }),
    // Two entries with one uid: the "several entries" case.
    `dn: ou=staff,${SUFFIX}\nobjectClass: organizationalUnit\nou: staff`,
    `dn: uid=twin,ou=people,${SUFFIX}\nobjectClass: inetOrgPerson\nuid: twin\ncn: Twin One\nsn: One\nuserPassword: Twin-pass1`,
    `dn: uid=twin,ou=staff,${SUFFIX}\nobjectClass: inetOrgPerson\nuid: twin\ncn: Twin Two\nsn: Two\nuserPassword: Twin-pass1`,
  ];
  return `${entries.join('\n\n')}\n`;
}

function config(dir: string): string {
  return [
    'include /etc/ldap/schema/core.schema',
    'include /etc/ldap/schema/cosine.schema',
    'include /etc/ldap/schema/inetorgperson.schema',
    `pidfile ${join(dir, 'slapd.pid')}`,
    `argsfile ${join(dir, 'slapd.args')}`,
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    `TLSCACertificateFile ${join(dir, 'ca.pem')}`,
    `TLSCertificateFile ${join(dir, 'server.pem')}`,
    `TLSCertificateKeyFile ${join(dir, 'server.key')}`,
    'database mdb',
    `suffix "${SUFFIX}"`,
    `rootdn "cn=admin,${SUFFIX}"`,
    `directory ${join(dir, 'db')}`,
    'maxsize 10485760',
    // Passwords are only ever compared by a bind; only signed-in users may search.
    'access to attrs=userPassword by anonymous auth by * none',
    'access to * by users read by anonymous auth',
    '',
  ].join('\n');
}

/** `subjectAltName`: whom the server's certificate names (only 127.0.0.1 unless a test says otherwise). */
export async function startSlapd(options: { subjectAltName?: string } = {}): Promise<Slapd> {
  const dir = tempDir('portico-slapd-');
  mkdirSync(join(dir, 'db'));
  await makeCertificates(dir, options.subjectAltName ?? 'IP:127.0.0.1');
  writeFileSync(join(dir, 'slapd.conf'), config(dir));
  writeFileSync(join(dir, 'data.ldif'), ldif());
  await execa('slapadd', ['-f', join(dir, 'slapd.conf'), '-l', join(dir, 'data.ldif')]);
  const ldapPort = await freePort();
  const ldapsPort = await freePort();
  const child: ResultPromise = execa('slapd', ['-d', '0', '-f', join(dir, 'slapd.conf'), '-h', `ldap://127.0.0.1:${ldapPort}/ ldaps://127.0.0.1:${ldapsPort}/`], { reject: false, stdio: 'ignore' });
  await vi.waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`slapd exited with ${child.exitCode}`);
      if (!(await accepts(ldapPort)) || !(await accepts(ldapsPort))) throw new Error('slapd is not listening yet');
    },
    { timeout: 30_000, interval: 100 },
  );
  const lines = (file: string) => readFileSync(join(dir, file), 'utf8').trim().split('\n');
  return {
    dir,
    ldapPort,
    ldapsPort,
    caLines: lines('ca.pem'),
    otherCaLines: lines('other-ca.pem'),
    async stop() {
      child.kill('SIGTERM');
      await child;
    },
  };
}
