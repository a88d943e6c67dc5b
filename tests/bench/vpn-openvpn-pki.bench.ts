// The OpenVPN server's PKI at scale: 1,000 client certificates with their `.ovpn` profiles,
// issued by the daemon's PKI (EC P-256, in-process), side by side with Debian's easy-rsa doing
// the same with the same key type (`--use-algo=ec --curve=prime256v1`, `build-client-full
// nopass`, the profile assembled from its files the same way). easy-rsa starts several openssl
// processes per certificate, so it issues a smaller count (BENCH_EASYRSA_CLIENTS, default 100)
// and the comparison is per certificate; the line says both counts. Budget: at least 10x faster.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openvpnServer, type OpenvpnServer } from '@portico/schema';
import { runCommand } from '../../apps/daemon/src/engine/command-runner.js';
import { OpenvpnPki } from '../../apps/daemon/src/domains/vpn-server/vpn-server-pki.js';
import { renderOpenvpnProfile } from '../../apps/daemon/src/domains/vpn-server/vpn-server-openvpn.js';
import { report, reportError } from './bench-util.mjs';

const CLIENTS = Number(process.env.BENCH_OVPN_CLIENTS ?? 1000);
const EASYRSA_CLIENTS = Number(process.env.BENCH_EASYRSA_CLIENTS ?? 100);
const EASYRSA = '/usr/share/easy-rsa/easyrsa';
const NAME = 'vpn-openvpn-pki';


async function installEasyRsa(): Promise<void> {
  if (existsSync(EASYRSA)) return;
  if (process.getuid?.() !== 0) throw new Error('easy-rsa is not installed and installing it needs root');
  await runCommand(['apt-get', 'update', '-qq'], { timeoutMs: 300_000 });
  const result = await runCommand(['apt-get', 'install', '-y', '-qq', 'easy-rsa', 'openvpn'], { timeoutMs: 600_000 });
  if (result.exitCode !== 0) throw new Error(`apt-get install easy-rsa failed: ${result.stderr.slice(0, 300)}`);
}

const work = mkdtempSync(join(tmpdir(), 'portico-bench-ovpn-'));
const server: OpenvpnServer = { ...(openvpnServer.schema.parse({}) as OpenvpnServer), enabled: true, host: 'vpn.example.org' };

try {
  await installEasyRsa();

  // The daemon's PKI: CA and server first (not timed), then each client's key, certificate and profile.
  const pki = new OpenvpnPki(join(work, 'portico'));
  await pki.ensure();
  const ca = await pki.caCertificate();
  let profileBytes = 0;
  const started = performance.now();
  for (let i = 0; i < CLIENTS; i++) {
    const name = `client${i}`;
    const issued = await pki.issueClient(name);
    profileBytes += renderOpenvpnProfile(server, { name, ca, certificate: issued.certificate, key: await pki.clientKey(name) }).length;
  }
  const porticoMs = performance.now() - started;

  // easy-rsa: the same key type, its own CA and server first (not timed).
  const dir = join(work, 'easyrsa');
  const easyrsa = async (...args: string[]) => {
    const result = await runCommand([EASYRSA, `--pki-dir=${dir}`, '--batch', '--use-algo=ec', '--curve=prime256v1', ...args], { timeoutMs: 120_000 });
    if (result.exitCode !== 0) throw new Error(`easyrsa ${args.join(' ')} failed: ${result.stderr.slice(0, 300)}`);
  };
  await easyrsa('init-pki');
  await easyrsa('--req-cn=Portico OpenVPN CA', 'build-ca', 'nopass');
  await easyrsa('build-server-full', 'server', 'nopass');
  const easyCa = readFileSync(join(dir, 'ca.crt'), 'utf8');
  const easyStarted = performance.now();
  for (let i = 0; i < EASYRSA_CLIENTS; i++) {
    const name = `client${i}`;
    await easyrsa('build-client-full', name, 'nopass');
    const certificate = readFileSync(join(dir, 'issued', `${name}.crt`), 'utf8');
    // easy-rsa's certificate file carries a text dump before the PEM block.
    const pem = certificate.slice(certificate.indexOf('-----BEGIN CERTIFICATE-----'));
    renderOpenvpnProfile(server, { name, ca: easyCa, certificate: pem, key: readFileSync(join(dir, 'private', `${name}.key`), 'utf8') });
  }
  const easyMs = performance.now() - easyStarted;

  const porticoPerCert = porticoMs / CLIENTS;
  const easyPerCert = easyMs / EASYRSA_CLIENTS;
  const ok = report(
    NAME,
    {
      key: 'EC P-256',
      portico_clients: CLIENTS,
      portico_total_ms: Math.round(porticoMs),
      portico_ms_per_client: Number(porticoPerCert.toFixed(3)),
      profile_bytes_avg: Math.round(profileBytes / CLIENTS),
      easyrsa_clients: EASYRSA_CLIENTS,
      easyrsa_total_ms: Math.round(easyMs),
      easyrsa_ms_per_client: Number(easyPerCert.toFixed(3)),
      easyrsa_note: EASYRSA_CLIENTS < CLIENTS ? `easy-rsa issued ${EASYRSA_CLIENTS} (not ${CLIENTS}) to stay within the time limit; compared per certificate` : 'same count',
      speedup: Number((easyPerCert / porticoPerCert).toFixed(1)),
      // For the budget check: the inverse speed-up must stay at or below 1/10.
      slowness_vs_easyrsa: Number((porticoPerCert / easyPerCert).toFixed(4)),
    },
    { slowness_vs_easyrsa: 0.1 },
  );
  if (!ok && process.env.BENCH_STRICT) process.exitCode = 1;
} catch (error) {
  reportError(NAME, error);
  if (process.env.BENCH_STRICT) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
