import { createHash, createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';

/**
 * Firmware for `upgrade`: the image is fetched over http or https into the state directory,
 * never larger than the settings allow, and handed to the system only if `FWsignature` verifies.
 *
 * The signature is Ed25519 (RFC 8032) over the image's SHA-256 digest (the 32 raw bytes),
 * base64-encoded: the digest is computed while the image streams to disk, so verifying never
 * holds the image in memory. The public key is the PEM file the settings name.
 */

export type FirmwareRefusal = 'missingSignature' | 'noKey' | 'downloadFailed' | 'tooLarge' | 'badSignature';

export class FirmwareError extends Error {
  constructor(readonly refusal: FirmwareRefusal, detail = '') {
    super(`${refusal}${detail ? `: ${detail}` : ''}`);
  }
}

export async function readFirmwareKey(path: string): Promise<KeyObject> {
  const key = createPublicKey(await readFile(path, 'utf8'));
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${path} is not an Ed25519 public key`);
  return key;
}

export interface DownloadOptions {
  dir: string;
  maxBytes: number;
  timeoutMs?: number;
  redirects?: number;
}

function request(uri: URL, timeoutMs: number): Promise<IncomingMessage> {
  const get = uri.protocol === 'https:' ? httpsGet : uri.protocol === 'http:' ? httpGet : null;
  if (!get) return Promise.reject(new FirmwareError('downloadFailed', 'only http and https'));
  return new Promise((resolve, reject) => {
    const req = get(uri, { timeout: timeoutMs }, resolve);
    req.on('timeout', () => req.destroy(new FirmwareError('downloadFailed', 'timed out')));
    req.on('error', reject);
  });
}

/** Streams the image to a new file and returns its path and SHA-256 digest. */
export async function downloadFirmware(uri: string, options: DownloadOptions): Promise<{ path: string; digest: Buffer; size: number }> {
  let url = new URL(uri);
  let response: IncomingMessage | null = null;
  for (let hop = 0; hop <= (options.redirects ?? 3); hop++) {
    response = await request(url, options.timeoutMs ?? 120_000).catch((error: unknown) => {
      throw error instanceof FirmwareError ? error : new FirmwareError('downloadFailed', String(error));
    });
    const location = response.headers.location;
    if (response.statusCode && [301, 302, 303, 307, 308].includes(response.statusCode) && location) {
      response.resume();
      url = new URL(location, url);
      response = null;
      continue;
    }
    break;
  }
  if (!response) throw new FirmwareError('downloadFailed', 'too many redirects');
  if (response.statusCode !== 200) {
    response.resume();
    throw new FirmwareError('downloadFailed', `HTTP ${response.statusCode}`);
  }
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    response.destroy();
    throw new FirmwareError('tooLarge');
  }
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const path = join(options.dir, `firmware-${randomBytes(6).toString('hex')}.bin`);
  const hash = createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > options.maxBytes) return done(new FirmwareError('tooLarge'));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(response, meter, createWriteStream(path, { mode: 0o600, flags: 'wx' }));
  } catch (error) {
    await rm(path, { force: true });
    throw error instanceof FirmwareError ? error : new FirmwareError('downloadFailed', String(error));
  }
  return { path, digest: hash.digest(), size };
}

/** True when `signature` (base64, 64 bytes) is the key's Ed25519 signature of `digest`. */
export function verifyFirmwareSignature(digest: Buffer, signature: string, key: KeyObject): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
  const bytes = Buffer.from(signature, 'base64');
  if (bytes.length !== 64) return false;
  return verify(null, digest, key, bytes);
}

/**
 * Fetches and verifies an image; returns its path for the system's upgrade. A missing signature
 * is refused before anything is fetched; a bad one removes the file.
 */
export async function fetchVerifiedFirmware(uri: string, signature: string | undefined, key: KeyObject | null, options: DownloadOptions): Promise<string> {
  if (!signature) throw new FirmwareError('missingSignature');
  if (!key) throw new FirmwareError('noKey');
  const image = await downloadFirmware(uri, options);
  if (!verifyFirmwareSignature(image.digest, signature, key)) {
    await rm(image.path, { force: true });
    throw new FirmwareError('badSignature');
  }
  return image.path;
}
