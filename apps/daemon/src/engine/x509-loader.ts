import { webcrypto } from 'node:crypto';
import { libraryExports } from './library-import.js';

/**
 * @peculiar/x509, loaded when a certificate is first made or read rather than at start: with
 * tsyringe, the Reflect metadata API and its ASN.1 schemas it adds start-up time and heap to
 * every start, while the certificate authorities that use it (OpenVPN server, wireless devices)
 * work only when asked. One load for every user, bound to Node's WebCrypto.
 */
let loading: Promise<typeof import('@peculiar/x509')> | undefined;

export function loadX509(): Promise<typeof import('@peculiar/x509')> {
  loading ??= (async () => {
    // tsyringe, which @peculiar/x509 resolves its algorithms through, needs the Reflect metadata API first.
    await import('reflect-metadata');
    const x509 = libraryExports(await import('@peculiar/x509'));
    x509.cryptoProvider.set(webcrypto as unknown as Crypto);
    return x509;
  })();
  return loading;
}
